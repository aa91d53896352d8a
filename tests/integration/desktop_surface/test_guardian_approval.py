"""`thread/approveGuardianDeniedAction` as Codex 0.169.0 answers it (observed on the real binary
against the fake model): Codex keeps no record of its reviewer's denials to check the event
against, so any well-formed assessment is answered `{}`; a `denied` one becomes a developer
message the model sees from the next turn on, naming the action and that it is allowed; other
statuses change nothing. A malformed event, an unknown thread or a bad id is refused (-32600)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tests.integration.desktop_surface.helpers import UNKNOWN_ID, refused, thread, turn
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

METHOD = "thread/approveGuardianDeniedAction"


def _event(status: str, command: str, **extra: Any) -> dict[str, Any]:
    action = {"type": "command", "source": "shell", "command": command, "cwd": "/tmp/work"}
    return {"id": "review-1", "turn_id": "turn-1", "status": status, "action": action, **extra}


def _developer_texts(body: dict[str, Any]) -> list[str]:
    return [
        part["text"]
        for item in body["input"]
        if item.get("type") == "message" and item.get("role") == "developer"
        for part in item["content"]
        if isinstance(part, dict) and "text" in part
    ]


async def test_a_denied_action_the_user_approves_reaches_the_model_once_per_approval(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("r0"), script.text_reply("r1"))
    server = await start_app()
    tid = await thread(server, workdir)
    await turn(server, tid, "first")
    mark = server.mark()
    denied = _event("denied", "rm -rf build", risk_level="high", rationale="destructive", target_item_id=None)
    assert await server.request(METHOD, {"threadId": tid, "event": denied}) == {}
    for status in ("approved", "in_progress", "timed_out", "aborted"):
        assert (
            await server.request(METHOD, {"threadId": tid, "event": _event(status, f"echo {status}")}) == {}
        )
    assert [m for m in server.since(mark) if "method" in m] == []  # no notification

    await turn(server, tid, "second")
    notes = [t for t in _developer_texts(fake_model.requests[-1].body) if '"outcome": "allowed"' in t]
    assert len(notes) == 1
    allowed = json.loads(notes[0][notes[0].index("{") :])
    assert allowed == {"action": denied["action"], "outcome": "allowed"}
    assert "echo" not in str(fake_model.requests[-1].body["input"][-3:])


async def test_malformed_events_unknown_threads_and_bad_ids_are_refused_as_codex_does(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("r0"))
    server = await start_app()
    tid = await thread(server, workdir)
    command = {"type": "command", "source": "shell", "command": "ls", "cwd": str(workdir)}
    prefix = "invalid Guardian denial event: "
    cases: list[tuple[Any, str]] = [
        ({}, "missing field `id`"),
        ({"id": "r1"}, "missing field `status`"),
        ({"id": "r1", "target_item_id": None, "turn_id": "t1"}, "missing field `status`"),
        ({"id": "r1", "status": "denied", "risk_level": "high"}, "missing field `action`"),
        (None, "invalid type: null, expected struct GuardianAssessmentEvent"),
        ("x", 'invalid type: string "x", expected struct GuardianAssessmentEvent'),
        ({"id": 5, "status": "denied", "action": command}, "invalid type: number, expected a string"),
        (
            {"id": "r1", "status": "bogus", "action": command},
            "unknown variant `bogus`, expected one of `in_progress`, `approved`, `denied`, "
            "`timed_out`, `aborted`",
        ),
        ({"id": "r1", "status": "denied", "action": {}}, "missing field `type`"),
        (
            {"id": "r1", "status": "denied", "action": {"type": "nope"}},
            "unknown variant `nope`, expected one of `command`, `execve`, `write_stdin`, `apply_patch`, "
            "`network_access`, `mcp_tool_call`, `request_permissions`",
        ),
    ]
    for event, message in cases:
        assert await refused(server, METHOD, {"threadId": tid, "event": event}) == (-32600, prefix + message)
    # Codex: -32600 "Invalid request: …"; Tether answers params errors -32602 (docs/protocol.md).
    assert await refused(server, METHOD, {"threadId": tid}) == (
        -32602,
        "Invalid params: missing field `event`",
    )
    good = _event("denied", "ls")
    assert await refused(server, METHOD, {"threadId": UNKNOWN_ID, "event": good}) == (
        -32600,
        f"thread not found: {UNKNOWN_ID}",
    )
    assert await refused(server, METHOD, {"threadId": "not-a-uuid", "event": good}) == (
        -32600,
        "invalid thread id: invalid character: expected an optional prefix of `urn:uuid:` followed by "
        "[0-9a-fA-F-], found `n` at 1",
    )
    # Unknown fields are ignored, as Codex's parser ignores them; nothing refused reached the model.
    assert await server.request(METHOD, {"threadId": tid, "event": {**good, "extra": 1}}) == {}
    await turn(server, tid, "next")
    notes = [t for t in _developer_texts(fake_model.requests[-1].body) if '"outcome": "allowed"' in t]
    assert len(notes) == 1


async def test_a_stored_thread_that_is_not_loaded_is_not_found(
    tmp_path: Path, start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("r0"))
    home = tmp_path / "home"
    server = await start_app(home=home)
    tid = await thread(server, workdir)
    await turn(server, tid, "first")
    await server.close()
    again = await start_app(home=home)
    assert await refused(again, METHOD, {"threadId": tid, "event": _event("denied", "ls")}) == (
        -32600,
        f"thread not found: {tid}",
    )
