"""One connection cannot hold every request slot: past its own cap it is told to retry, others are served."""

from __future__ import annotations

import asyncio
import base64
import os
from pathlib import Path

from tests.integration.transports.conftest import StartSocketServer
from tests.support.wsclient import WsClient

FULL_ACCESS = {"type": "dangerFullAccess"}
# More than a pipe holds: a write to a process that does not read its stdin stays in flight.
STUCK_WRITE = base64.b64encode(b"x" * (1 << 20)).decode()


async def test_a_connection_past_its_in_flight_cap_is_refused_and_others_are_served(
    socket_server: StartSocketServer, clients: list[WsClient], tmp_path: Path
) -> None:
    server = await socket_server("--listen", "unix://", "--max-inflight-per-connection", "2")
    greedy, other = await server.connect_unix(), await server.connect_unix()
    clients += [greedy, other]
    await greedy.initialize()
    await other.initialize()
    fifo = tmp_path / "gate"
    os.mkfifo(fifo)
    command = {
        "command": ["head", "-c1", str(fifo)],
        "processId": "stuck",
        "streamStdin": True,
        "sandboxPolicy": FULL_ACCESS,
    }
    exited = asyncio.create_task(greedy.request("command/exec", command))
    # Opening the FIFO for writing returns once `head` has opened it: the process runs.
    gate = await asyncio.to_thread(os.open, fifo, os.O_WRONLY)

    write = {"processId": "stuck", "deltaBase64": STUCK_WRITE}
    stuck = [asyncio.create_task(greedy.call("command/exec/write", write)) for _ in range(2)]
    refused = await asyncio.create_task(greedy.call("thread/loaded/list", {}))

    assert refused["error"] == {
        "code": -32001,
        "message": "Server overloaded; retry later.",
        "data": {"scope": "connection", "limit": 2},
    }
    assert not any(task.done() for task in stuck)
    assert (await other.request("thread/loaded/list", {}))["data"] == []

    os.close(gate)  # `head` reads end of input and exits; the stuck writes are answered
    await asyncio.gather(*stuck)
    assert (await exited)["exitCode"] == 0
    assert (await greedy.request("thread/loaded/list", {}))["data"] == []
