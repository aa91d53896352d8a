"""Signals: SIGTERM drains (running turns finish, new turns are refused), a second signal exits at once."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from tests.conftest import StartServer
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


async def test_sigterm_lets_the_running_turn_finish_and_refuses_new_turns(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.reply(script.gated("hold"), script.message("finished")))
    server = await start_server()
    busy = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    idle = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    mark = server.mark()
    await server.request("turn/start", {"threadId": busy, "input": [{"type": "text", "text": "work"}]})
    await fake_model.wait_for_gate("hold")
    server.proc.send_signal(signal.SIGTERM)
    refused = await server.call("turn/start", {"threadId": idle, "input": [{"type": "text", "text": "more"}]})
    assert refused["error"] == {
        "code": -32600,
        "message": "Server is draining; retry after reconnecting",
        "data": {"reason": "serverShuttingDown"},
    }
    fake_model.release("hold")
    done = await server.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "completed"
    async with asyncio.timeout(15):
        assert await server.proc.wait() == 0


async def test_a_second_signal_exits_at_once(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.reply(script.gated("forever"), script.message("never")))
    server = await start_server()
    tid = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    await server.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "work"}]})
    await fake_model.wait_for_gate("forever")
    server.proc.send_signal(signal.SIGTERM)
    await server.request("thread/loaded/list", {})  # the first signal has been handled: still serving
    server.proc.send_signal(signal.SIGINT)
    async with asyncio.timeout(15):
        await server.proc.wait()
