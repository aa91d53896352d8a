"""Stopping the daemon: drain on SIGTERM, a second signal, and the managed daemon and proxy commands."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from tests.integration.transports.conftest import StartSocketServer
from tests.support.appserver import AppServer, mock_provider_args
from tests.support.rpcclient import WAIT_S
from tests.support.wsclient import SocketServer, WsClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


async def _running_turn(server: SocketServer, fake_model: FakeResponsesServer, cwd: Path) -> WsClient:
    fake_model.add(script.reply(script.gated("hold"), script.message("finished after the signal")))
    client = await server.connect_unix()
    await client.initialize()
    thread_id = (await client.request("thread/start", {"cwd": str(cwd)}))["thread"]["id"]
    await client.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "go"}]})
    await fake_model.wait_for_gate("hold", within_s=WAIT_S)
    return client


async def test_sigterm_drains_the_running_turn_then_exits_cleanly(
    socket_server: StartSocketServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await socket_server("--listen", "unix://")
    client = await _running_turn(server, fake_model, workdir)

    server.signal(signal.SIGTERM)
    await server.logged("server.draining")
    refused = await client.call("thread/start", {"cwd": str(workdir)})
    fake_model.release("hold")
    done = await client.notification("turn/completed")
    status = await server.wait()
    await client.closed()

    assert refused["error"]["message"] == "Server is draining; retry after reconnecting"
    assert refused["error"]["data"] == {"reason": "serverShuttingDown"}
    assert done["params"]["turn"]["status"] == "completed"
    assert status == 0
    assert server.unix_path is not None and not server.unix_path.exists()
    client.check()


async def test_a_second_signal_stops_without_waiting_for_the_turn(
    socket_server: StartSocketServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await socket_server("--listen", "unix://")
    client = await _running_turn(server, fake_model, workdir)

    server.signal(signal.SIGTERM)
    await server.logged("server.draining")
    server.signal(signal.SIGINT)
    status = await server.wait()
    await client.closed()
    fake_model.release("hold")

    assert status == 0
    assert "turn/completed" not in [m.get("method") for m in client.messages]


async def test_a_stdio_client_reaches_a_running_daemon_through_the_proxy(
    socket_server: StartSocketServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await socket_server("--listen", "unix://")
    fake_model.add(script.text_reply("relayed both ways", deltas=3))
    proxy = await AppServer.start(server.home, ["proxy"])
    try:
        await proxy.initialize()
        thread_id = (await proxy.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
        await proxy.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]})
        done = await proxy.notification("turn/completed")
    finally:
        status = await proxy.close()

    assert done["params"]["turn"]["items"][0]["text"] == "relayed both ways"
    assert status == 0


async def test_the_proxy_answers_what_was_sent_before_stdin_ended(socket_server: StartSocketServer) -> None:
    server = await socket_server("--listen", "unix://")
    proxy = await AppServer.start(server.home, ["proxy"])
    client_info = {"name": "piped", "title": None, "version": "1"}

    await proxy.send({"id": 1, "method": "initialize", "params": {"clientInfo": client_info}})
    status = await proxy.close()

    assert status == 0
    assert [m.get("id") for m in proxy.messages] == [1]
    assert "userAgent" in proxy.messages[0]["result"]


async def _tether(home: Path, *args: str) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tether_server",
        "app-server",
        *args,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "TETHER_HOME": str(home)},
    )
    async with asyncio.timeout(120):
        _, err = await proc.communicate()
    return int(proc.returncode or 0), err.decode()


async def test_the_managed_daemon_starts_once_reports_status_and_stops(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    flags = mock_provider_args(fake_model.base_url)
    first = await _tether(home, *flags, "daemon", "start")
    try:
        again = await _tether(home, *flags, "daemon", "start")
        running = await _tether(home, "daemon", "status")
        client = await WsClient.connect_unix(home / "app-server-control" / "app-server-control.sock")
        await client.initialize()
        await client.close()
    finally:
        stopped = await _tether(home, "daemon", "stop")
    after = await _tether(home, "daemon", "status")

    assert first[0] == 0 and "daemon started" in first[1]
    assert again[0] == 0 and "already running" in again[1]
    assert running[0] == 0 and "is running" in running[1]
    assert stopped[0] == 0 and "stopped" in stopped[1]
    assert after == (3, "tether app-server daemon is not running\n")


async def test_repeated_sighup_keeps_waiting_for_the_running_turn(
    socket_server: StartSocketServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await socket_server("--listen", "unix://")
    client = await _running_turn(server, fake_model, workdir)

    server.signal(signal.SIGHUP)
    await server.logged('"count": 1')
    server.signal(signal.SIGHUP)  # only after the first was seen: pending signals of one kind merge
    await server.logged('"count": 2')
    still_serving = await client.call("thread/loaded/list", {})
    fake_model.release("hold")
    await client.notification("turn/completed")

    assert "result" in still_serving
    assert await server.wait() == 0
