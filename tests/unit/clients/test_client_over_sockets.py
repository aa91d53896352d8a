"""The SDK connected to a running daemon over WebSocket and over the unix control socket."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from tests.support.appserver import mock_provider_args
from tests.support.wsclient import SocketServer

from tether_client import Client
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


@pytest.fixture
async def daemon(fake_model: FakeResponsesServer, tmp_path: Path) -> AsyncIterator[SocketServer]:
    args = [*mock_provider_args(fake_model.base_url), "--listen", "ws://127.0.0.1:0", "--listen", "unix://"]
    server = await SocketServer.start(tmp_path / "home", args)
    yield server
    await server.stop()


@pytest.mark.parametrize("over", ["ws", "unix"])
async def test_a_client_of_a_running_daemon_runs_a_turn(
    over: str,
    daemon: SocketServer,
    fake_model: FakeResponsesServer,
    workdir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_model.add(script.text_reply("Over a socket."))
    assert daemon.unix_path is not None
    # The SDK reads the daemon's generated WebSocket token from $TETHER_HOME/ws-token.
    monkeypatch.setenv("TETHER_HOME", str(daemon.home))
    address = daemon.ws_url if over == "ws" else f"unix://{daemon.unix_path}"
    async with await Client.connect(address) as client:
        thread = await client.start_thread(cwd=str(workdir))
        stream = client.run_turn(thread.thread.id, "hi")
        assert (await stream.wait()).status == "completed"
    assert stream.final_message == "Over a socket."
