"""The official TypeScript SDK (`@openai/codex-sdk`, pinned) driving `tether exec`, unchanged.

The SDK spawns `<codexPathOverride> exec --experimental-json …` and reads the JSONL events; here
`codexPathOverride` is a launcher of this checkout's `tether`, the model is the fake on loopback
(the SDK's `baseUrl`). `.ci/run` installs Node.js and the SDK (`scripts/install-node-sdk`); the
tests fail rather than skip without them.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import select
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.appserver import mock_provider_args
from tests.support.exec_run import EXEC_WAIT_S, git_repo
from tests.support.exec_shapes import validate_stream
from tether_client import Client
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

CASE_SCRIPT = Path(__file__).parent / "node" / "sdk_case.mjs"
SDK_PREFIX = Path(os.environ.get("TETHER_NODE_PREFIX", Path.home() / ".cache" / "tether-test-node"))
SDK_ENTRY = SDK_PREFIX / "node_modules" / "@openai" / "codex-sdk" / "dist" / "index.js"
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


@pytest.fixture
def launcher(tmp_path: Path) -> Path:
    """`codexPathOverride`: runs this checkout's `tether`, noting its pid for the abort test."""
    node = shutil.which("node")
    assert node, "node not found: .ci/run installs Node.js (apt-get install nodejs npm)"
    assert SDK_ENTRY.is_file(), f"{SDK_ENTRY} missing: run ./scripts/install-node-sdk"
    tether = Path(sys.executable).parent / "tether"
    path = tmp_path / "tether-launcher"
    path.write_text(f'#!/bin/sh\necho $$ > "{tmp_path}/launcher.pid"\nexec "{tether}" "$@"\n')
    path.chmod(0o755)
    return path


async def _node(launcher: Path, fake: FakeResponsesServer, home: Path, **params: Any) -> dict[str, Any]:
    payload = {"sdk": str(SDK_ENTRY), "tether": str(launcher), "baseUrl": fake.base_url, **params}
    proc = await asyncio.create_subprocess_exec(
        "node",
        str(CASE_SCRIPT),
        json.dumps(payload),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "TETHER_HOME": str(home)},
    )
    async with asyncio.timeout(EXEC_WAIT_S * 2):
        out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    result: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    return result


async def test_run_returns_the_final_response_items_and_usage(
    fake_model: FakeResponsesServer, launcher: Path, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    fake_model.add(
        script.reply(
            script.reasoning(["**Plan**\n\ncheck"]),
            script.function_call("exec_command", {"cmd": "echo node", "yield_time_ms": 2000}, "c1"),
            usage=script.usage(50, 5),
        ),
        script.reply(script.message("Hello from Tether."), usage=script.usage(70, 7, cached_input_tokens=20)),
    )
    result = await _node(launcher, fake_model, tmp_path / "home", case="run", cwd=str(repo), prompt="Say hi")
    turn = result["ok"]
    assert turn["finalResponse"] == "Hello from Tether."
    assert [i["type"] for i in turn["items"]] == ["reasoning", "command_execution", "agent_message"]
    assert turn["items"][1]["aggregated_output"] == "node\n" and turn["items"][1]["exit_code"] == 0
    assert turn["usage"] == {
        "input_tokens": 120,
        "cached_input_tokens": 20,
        "cache_write_input_tokens": 0,
        "output_tokens": 12,
        "reasoning_output_tokens": 0,
    }
    assert turn["threadId"]
    request = fake_model.requests[0]
    assert request.header("authorization") == "Bearer sk-node-sdk"  # the SDK's apiKey
    assert request.body["model"] == "gpt-test"


async def test_run_streamed_yields_codex_events_in_order(
    fake_model: FakeResponsesServer, launcher: Path, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    fake_model.add(script.text_reply("Streamed."))
    result = await _node(launcher, fake_model, tmp_path / "home", case="streamed", cwd=str(repo), prompt="go")
    events = result["ok"]["events"]
    validate_stream(events)
    assert [e["type"] for e in events] == [
        "thread.started",
        "turn.started",
        "item.completed",
        "turn.completed",
    ]
    assert result["ok"]["threadId"] == events[0]["thread_id"]


async def test_output_schema_reaches_the_model_and_the_answer_parses(
    fake_model: FakeResponsesServer, launcher: Path, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    schema = {"type": "object", "properties": {"answer": {"type": "number"}}, "required": ["answer"]}
    fake_model.add(script.text_reply('{"answer": 42}'))
    result = await _node(
        launcher, fake_model, tmp_path / "home", case="schema", cwd=str(repo), prompt="?", schema=schema
    )
    assert result["ok"]["parsed"] == {"answer": 42}
    text_format = fake_model.requests[0].body["text"]["format"]
    assert text_format["type"] == "json_schema" and text_format["schema"] == schema


async def test_resume_thread_continues_the_conversation(
    fake_model: FakeResponsesServer, launcher: Path, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    fake_model.add(script.text_reply("One."), script.text_reply("Two."))
    result = await _node(
        launcher, fake_model, tmp_path / "home", case="resume", cwd=str(repo), prompt="first", second="second"
    )
    assert result["ok"]["firstId"] == result["ok"]["resumedId"]
    assert result["ok"]["responses"] == ["One.", "Two."]
    history = [c.get("text") for i in fake_model.requests[1].body["input"] for c in i.get("content") or []]
    assert "first" in history and "One." in history and history[-1] == "second"


async def test_local_images_are_sent_to_the_model(
    fake_model: FakeResponsesServer, launcher: Path, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    image = tmp_path / "shot.png"
    image.write_bytes(PNG)
    fake_model.add(script.text_reply("I see it."))
    result = await _node(
        launcher,
        fake_model,
        tmp_path / "home",
        case="images",
        cwd=str(repo),
        prompt="look",
        images=[str(image)],
    )
    assert result["ok"]["finalResponse"] == "I see it."
    content = [
        c for i in fake_model.requests[0].body["input"] if i.get("role") == "user" for c in i["content"]
    ]
    assert any(c["type"] == "input_image" for c in content)
    assert content[-1] == {"type": "input_text", "text": "look"}


async def test_working_directory_sandbox_and_model_options_apply(
    fake_model: FakeResponsesServer, launcher: Path, tmp_path: Path
) -> None:
    plain = tmp_path / "plain"  # not a git repository: skipGitRepoCheck lets it run
    plain.mkdir()
    fake_model.add(
        script.reply(
            script.function_call("exec_command", {"cmd": "echo made > made.txt", "yield_time_ms": 3000}, "w")
        ),
        script.text_reply("Wrote it."),
    )
    options = {"sandboxMode": "workspace-write", "model": "gpt-node-model", "approvalPolicy": "on-request"}
    result = await _node(
        launcher,
        fake_model,
        tmp_path / "home",
        case="run",
        cwd=str(plain),
        prompt="write",
        skipGitRepoCheck=True,
        threadOptions=options,
    )
    assert result["ok"]["finalResponse"] == "Wrote it."
    assert (plain / "made.txt").read_text() == "made\n"
    assert fake_model.requests[0].body["model"] == "gpt-node-model"
    refused = await _node(launcher, fake_model, tmp_path / "home", case="run", cwd=str(plain), prompt="x")
    assert "Not inside a trusted directory" in refused["rejected"]["message"]


async def test_a_failing_model_rejects_the_promise_with_the_error(
    fake_model: FakeResponsesServer, launcher: Path, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    fake_model.add(script.failed("server_error", "the model is down"))
    result = await _node(launcher, fake_model, tmp_path / "home", case="run", cwd=str(repo), prompt="x")
    assert result["rejected"]["message"] == "the model is down"


def _wait_for_exit(pid: int, within_s: float) -> None:
    """Block until process `pid` (not our child) has exited."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        ready, _, _ = select.select([fd], [], [], within_s)
        assert ready, f"tether exec (pid {pid}) still running {within_s}s after the abort"
    finally:
        os.close(fd)


async def test_an_abort_signal_rejects_and_leaves_the_turn_interrupted(
    fake_model: FakeResponsesServer, launcher: Path, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    home = tmp_path / "home"
    fake_model.add(script.reply(script.gated("hold"), script.message("never")))
    result = await _node(launcher, fake_model, home, case="abort", cwd=str(repo), prompt="wait")
    fake_model.release("hold")
    assert result["ok"]["rejected"]["name"] == "AbortError"
    seen = result["ok"]["seen"]
    assert [e["type"] for e in seen] == ["thread.started", "turn.started"]
    pid = int((tmp_path / "launcher.pid").read_text())
    await asyncio.to_thread(_wait_for_exit, pid, EXEC_WAIT_S)
    command = [sys.executable, "-m", "tether_server", "app-server", *mock_provider_args(fake_model.base_url)]
    async with await Client.spawn(command, env={"TETHER_HOME": str(home)}) as client:
        read = await client.request_raw(
            "thread/read", {"threadId": seen[0]["thread_id"], "includeTurns": True}
        )
    assert [turn["status"] for turn in read["thread"]["turns"]] == ["interrupted"]
