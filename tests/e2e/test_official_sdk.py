"""The official Python SDK (`openai-codex`) driving `tether app-server` instead of the Codex binary.

The SDK is pointed at Tether with `CodexConfig.launch_args_override` (the argv it spawns); it then
speaks the Codex v2 protocol over stdio exactly as it does to `codex app-server`.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from tests.support.appserver import mock_provider_args
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

pytest.importorskip("openai_codex")

from openai_codex import AsyncCodex, CodexConfig, Sandbox
from openai_codex.client import CodexClient
from openai_codex.models import Notification, UnknownNotification

# The SDK's close() leaves its subprocess pipes to the garbage collector (an SDK-side leak).
pytestmark = [
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]

ESCALATED = {
    "cmd": "echo hi > out.txt",
    "yield_time_ms": 1000,
    "sandbox_permissions": "require_escalated",
    "justification": "Write out.txt?",
}


def _config(fake: FakeResponsesServer, home: Path) -> CodexConfig:
    argv = (sys.executable, "-m", "tether_server", "app-server", *mock_provider_args(fake.base_url))
    return CodexConfig(launch_args_override=argv, env={"TETHER_HOME": str(home)}, cwd=str(home))


def _wire(event: Notification) -> dict[str, Any]:
    """The SDK's parsed payload, back in wire form (the SDK's models are a large union)."""
    assert isinstance(event.payload, BaseModel), f"the SDK could not read {event.method}"
    wire: dict[str, Any] = event.payload.model_dump(mode="json", by_alias=True)
    return wire


def _unreadable(events: list[Notification]) -> list[str]:
    """Methods whose params the SDK's own models rejected."""
    return [e.method for e in events if isinstance(e.payload, UnknownNotification)]


def _verdict(outcome: str) -> dict[str, Any]:
    body = {"outcome": outcome, "risk_level": "low", "rationale": "the user asked for it"}
    return script.text_reply(json.dumps(body))


async def test_the_sdk_streams_text_and_collects_the_final_response(
    fake_model: FakeResponsesServer, tmp_path: Path, workdir: Path
) -> None:
    fake_model.add(script.text_reply("Streamed hello.", deltas=3), script.text_reply("Second answer."))
    async with AsyncCodex(_config(fake_model, tmp_path)) as codex:
        assert "tether" in (codex.metadata.userAgent or "")
        thread = await codex.thread_start(cwd=str(workdir))
        turn = await thread.turn("hello")
        events = [event async for event in turn.stream()]
        result = await thread.run("again")
    deltas = [_wire(e)["delta"] for e in events if e.method == "item/agentMessage/delta"]
    assert "".join(deltas) == "Streamed hello."
    assert _unreadable(events) == []
    assert events[-1].method == "turn/completed"
    assert result.final_response == "Second answer."
    assert result.status.value == "completed"
    assert result.usage is not None and result.usage.last.total_tokens > 0


async def test_the_sdks_default_auto_review_lets_a_reviewed_escalation_run(
    fake_model: FakeResponsesServer, tmp_path: Path, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", ESCALATED, "call_1")),
        _verdict("allow"),
        script.text_reply("Wrote it."),
    )
    async with AsyncCodex(_config(fake_model, tmp_path)) as codex:
        thread = await codex.thread_start(cwd=str(workdir), sandbox=Sandbox.read_only)
        turn = await thread.turn("write out.txt")
        events = [event async for event in turn.stream()]
    methods = [e.method for e in events]
    assert "item/autoApprovalReview/completed" in methods
    assert _unreadable(events) == []
    items = [_wire(e)["item"] for e in events if e.method == "item/completed"]
    assert [i["status"] for i in items if i["type"] == "commandExecution"] == ["completed"]
    assert _wire(events[-1])["turn"]["status"] == "completed"


async def test_the_sdks_approval_handler_answers_tethers_command_approval_request(
    fake_model: FakeResponsesServer, tmp_path: Path, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", ESCALATED, "call_1")), script.text_reply("ok")
    )
    asked: list[tuple[str, dict[str, Any] | None]] = []

    def decline(method: str, params: dict[str, Any] | None) -> dict[str, Any]:
        asked.append((method, params))
        return {"decision": "decline"}

    def run() -> str:
        with CodexClient(_config(fake_model, tmp_path), approval_handler=decline) as client:
            client.initialize()
            settings = {"cwd": str(workdir), "sandbox": "read-only", "approvalPolicy": "on-request"}
            thread = client.thread_start({**settings, "approvalsReviewer": "user"})
            turn = client.turn_start(thread.thread.id, "write out.txt")
            completed = client.wait_for_turn_completed(turn.turn.id)
            return str(completed.turn.status.value)

    assert await asyncio.to_thread(run) == "completed"
    assert [method for method, _ in asked] == ["item/commandExecution/requestApproval"]
    assert asked[0][1] is not None and asked[0][1]["itemId"] == "call_1"
