"""The reference recorder's pure parts, on the committed transcripts and on samples: no Codex binary.

Recording itself (`python -m conformance.regenerate`) needs the real Codex and is run by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conformance.recorder.normalise import PROSE, Normaliser, scratch_paths, scrub_request_body
from conformance.recorder.scenarios import SCENARIOS
from conformance.recorder.skeleton import compare, skeleton

TRANSCRIPTS = Path(__file__).resolve().parents[2] / "conformance" / "reference" / "transcripts"
UUID_A = "019a2b3c-0000-7000-8000-00000000000a"
UUID_B = "019a2b3c-0000-7000-8000-00000000000b"


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _transcripts() -> list[Path]:
    return sorted(p for p in TRANSCRIPTS.glob("*.jsonl") if not p.name.endswith(".upstream-requests.jsonl"))


def test_the_skeleton_writer_reproduces_every_committed_skeleton() -> None:
    assert _transcripts(), "no committed transcripts"
    for path in _transcripts():
        committed = path.with_name(path.name.removesuffix(".jsonl") + ".skeleton.txt").read_text()
        assert skeleton(_records(path)) == committed.splitlines(), path.name


def test_the_recorder_runs_exactly_the_committed_scenarios() -> None:
    assert sorted(s.name for s in SCENARIOS) == sorted(p.stem for p in _transcripts())
    for scenario in SCENARIOS:
        header = _records(TRANSCRIPTS / f"{scenario.name}.jsonl")[0]
        assert header["description"] == scenario.description, scenario.name
        requests = TRANSCRIPTS / f"{scenario.name}.upstream-requests.jsonl"
        assert requests.is_file() == scenario.keep_requests, scenario.name


def test_the_normaliser_replaces_what_changes_between_runs(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    normaliser = Normaliser(scratch_paths(home, work), "build-host-7")
    rollout = f"{home}/sessions/2026/12/01/rollout-2026-12-01T18-03-33-{UUID_B}.jsonl"
    remote = {"serverName": "build-host-7", "installationId": UUID_A}
    thread = {"path": rollout, "id": UUID_B, "cwd": f"{work}/src", "createdAt": 17, "startedAt": None}
    item = {"durationMs": 12, "processId": "4242", "exitCode": 0, "message": f"no thread {UUID_A.upper()}"}
    messages = [
        {"id": 1, "result": {"codexHome": str(home), "userAgent": "oracle_driver/0.169.0"}},
        {"method": "remoteControl/status/changed", "emittedAtMs": 1796148529162, "params": remote},
        {"id": 2, "result": {"thread": thread}},
        {"method": "item/completed", "params": {"item": item}},
    ]
    assert [normaliser.value(m) for m in messages] == [
        {"id": 1, "result": {"codexHome": "<CODEX_HOME>", "userAgent": "oracle_driver/0.169.0"}},
        {
            "emittedAtMs": "<TS>",
            "method": "remoteControl/status/changed",
            "params": {"installationId": "<ID1>", "serverName": "<HOSTNAME>"},
        },
        {
            "id": 2,
            "result": {
                "thread": {
                    "createdAt": "<TS>",
                    "cwd": "<WORKDIR>/src",
                    "id": "<ID2>",
                    "path": "<CODEX_HOME>/sessions/<DATE>/rollout-<DATETIME>-<ID2>.jsonl",
                    "startedAt": None,
                }
            },
        },
        {
            "method": "item/completed",
            "params": {
                "item": {
                    "durationMs": "<DUR>",
                    "exitCode": 0,
                    "message": "no thread <ID1>",
                    "processId": "<PID>",
                }
            },
        },
    ]
    # Keys come out sorted: the order the transcript is written in, and the order ids are numbered in.
    assert list(normaliser.value({"b": UUID_B, "a": "x"})) == ["a", "b"]


def _message(role: str, *texts: str) -> dict[str, Any]:
    content = [{"type": "input_text", "text": text} for text in texts]
    return {"type": "message", "id": f"m-{role}", "role": role, "content": content}


def test_request_bodies_lose_codex_prose_and_telemetry_but_keep_the_conversation(tmp_path: Path) -> None:
    work = tmp_path / "work"
    body: dict[str, Any] = {
        "model": "gpt-5.5",
        "instructions": "You are a coding agent; many paragraphs of someone else's prose.",
        "input": [
            _message("developer", "permissions prose", "more prose"),
            _message("user", f"<environment_context><cwd>{work}</cwd></environment_context>"),
            {"type": "function_call_output", "call_id": "c1", "output": f"wrote {work}/out.txt"},
        ],
        "client_metadata": {"x-codex-installation-id": UUID_A},
    }
    scrubbed = scrub_request_body(body, scratch_paths(tmp_path / "home", work))
    assert scrubbed == {
        "model": "gpt-5.5",
        "instructions": PROSE,
        "input": [
            _message("developer", PROSE),
            _message("user", "<environment_context><cwd><WORKDIR></cwd></environment_context>"),
            {"type": "function_call_output", "call_id": "c1", "output": "wrote <WORKDIR>/out.txt"},
        ],
    }
    assert body["input"][0]["content"][0]["text"] == "permissions prose", "the original is left alone"


def test_the_committed_request_logs_carry_no_instruction_prose() -> None:
    logs = sorted(TRANSCRIPTS.glob("*.upstream-requests.jsonl"))
    assert logs
    for path in logs:
        for entry in _records(path):
            body = entry["body"]
            assert body.get("instructions", PROSE) == PROSE and "client_metadata" not in body, path.name
            for item in body["input"]:
                if item.get("role") in ("developer", "system"):
                    assert item["content"] == [{"type": "input_text", "text": PROSE}], path.name


SKELETON = [
    "## header",
    "-- step 0: handshake",
    "send request initialize",
    'recv result id=1 ["codexHome"]',
    "send notification initialized",
    "recv notification remoteControl/status/changed",
    "-- step 1: request thread/start",
    "send request thread/start",
    'recv result id=2 ["thread"]',
    "-- step 2: wait thread/started",
    "recv notification thread/started",
    "-- step 3: quiesce",
    "## end",
]


def _moved(lines: list[str], line: str, after: str) -> list[str]:
    rest = [x for x in lines if x != line]
    index = rest.index(after) + 1
    return [*rest[:index], line, *rest[index:]]


def test_compare_tolerates_order_within_a_step_and_server_messages_crossing_one_step_line() -> None:
    assert compare(SKELETON, SKELETON).differences == []
    swapped = _moved(
        SKELETON, "recv notification remoteControl/status/changed", 'recv result id=1 ["codexHome"]'
    )
    result = compare(SKELETON, swapped)
    assert (result.differences, result.moved, result.reordered) == ([], [], True)
    early = _moved(SKELETON, "recv notification thread/started", "send request thread/start")
    result = compare(SKELETON, early)
    assert result.differences == []
    started = "'recv notification thread/started'"
    assert result.moved == [
        f"{started}: '-- step 2: wait thread/started' -> '-- step 1: request thread/start'"
    ]


def test_compare_reports_what_the_protocol_did_differently() -> None:
    two_steps = _moved(
        SKELETON, "recv notification remoteControl/status/changed", "-- step 2: wait thread/started"
    )
    assert compare(SKELETON, two_steps).differences == [
        "-- step 0: handshake: missing 'recv notification remoteControl/status/changed'",
        "-- step 2: wait thread/started: unexpected 'recv notification remoteControl/status/changed'",
    ]
    result_moved = _moved(SKELETON, 'recv result id=2 ["thread"]', "-- step 2: wait thread/started")
    assert len(compare(SKELETON, result_moved).differences) == 2
    error = [line.replace('recv result id=2 ["thread"]', "recv error id=2 code=-32600") for line in SKELETON]
    assert compare(SKELETON, error).differences == [
        "-- step 1: request thread/start: missing 'recv result id=2 [\"thread\"]'",
        "-- step 1: request thread/start: unexpected 'recv error id=2 code=-32600'",
    ]
    fewer_steps = [line for line in SKELETON if line != "-- step 3: quiesce"]
    assert compare(SKELETON, fewer_steps).differences[0] == "the steps differ"
