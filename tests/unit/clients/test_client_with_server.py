"""The SDK driving a real `tether app-server` child against the fake model."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from tests.support.appserver import mock_provider_args

from tether_client import Client, ServerRequest, SyncClient, accept_all
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

ESCALATED = {
    "cmd": "echo hi > out.txt",
    "yield_time_ms": 1000,
    "sandbox_permissions": "require_escalated",
    "justification": "Write out.txt?",
}


def _command(fake: FakeResponsesServer) -> list[str]:
    return [sys.executable, "-m", "tether_server", "app-server", *mock_provider_args(fake.base_url)]


def _command_status(items: list[dict[str, Any]]) -> str:
    return next(str(i["status"]) for i in items if i["type"] == "commandExecution")


async def _spawn(fake: FakeResponsesServer, home: Path, **kw: object) -> Client:
    return await Client.spawn(_command(fake), cwd=home, env={"TETHER_HOME": str(home)}, **kw)  # type: ignore[arg-type]


async def test_run_turn_streams_the_turn_and_ends_with_its_completion(
    fake_model: FakeResponsesServer, tmp_path: Path, workdir: Path
) -> None:
    fake_model.add(script.text_reply("Hello from the SDK test.", deltas=3))
    async with await _spawn(fake_model, tmp_path) as client:
        started = await client.start_thread(cwd=str(workdir))
        stream = client.run_turn(started.thread.id, "hi")
        seen = [n async for n in stream]
    assert seen[-1].method == "turn/completed"
    deltas = [n.params["delta"] for n in seen if n.method == "item/agentMessage/delta"]
    assert "".join(deltas) == "Hello from the SDK test."
    assert stream.status == "completed"
    assert stream.final_message == "Hello from the SDK test."


async def test_an_approval_callback_lets_an_escalated_command_run(
    fake_model: FakeResponsesServer, tmp_path: Path, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", ESCALATED, "call_1")), script.text_reply("done")
    )
    asked: list[ServerRequest] = []

    async def approve(request: ServerRequest) -> dict[str, str] | None:
        asked.append(request)
        return await accept_all(request)

    async with await _spawn(fake_model, tmp_path, approval_handler=approve) as client:
        thread = await client.start_thread(
            cwd=str(workdir), sandbox="read-only", approval_policy="on-request"
        )
        stream = client.run_turn(thread.thread.id, "write it")
        assert (await stream.wait()).status == "completed"
    assert [r.method for r in asked] == ["item/commandExecution/requestApproval"]
    assert _command_status(stream.items) != "declined"


async def test_without_a_callback_an_escalation_is_declined_and_the_turn_still_ends(
    fake_model: FakeResponsesServer, tmp_path: Path, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", ESCALATED, "call_1")), script.text_reply("ok")
    )
    async with await _spawn(fake_model, tmp_path) as client:
        thread = await client.start_thread(
            cwd=str(workdir), sandbox="read-only", approval_policy="on-request"
        )
        stream = client.run_turn(thread.thread.id, "write it")
        turn = await stream.wait()
    assert turn.status == "completed"
    assert _command_status(stream.items) == "declined"


async def test_the_sync_client_runs_a_turn_without_an_event_loop(
    fake_model: FakeResponsesServer, tmp_path: Path, workdir: Path
) -> None:
    fake_model.add(script.text_reply("Blocking hello."))

    def blocking() -> tuple[str, str | None]:
        env = {"TETHER_HOME": str(tmp_path)}
        with SyncClient.spawn(_command(fake_model), cwd=tmp_path, env=env) as client:
            thread = client.start_thread(cwd=str(workdir))
            result = client.run_turn(thread.thread.id, "hi")
            return result.status, result.final_message

    assert await asyncio.to_thread(blocking) == ("completed", "Blocking hello.")
