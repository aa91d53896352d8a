"""Fixtures: a real app-server on the control socket and/or loopback WebSocket, and clients for it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from tests.conftest import StartServer
from tests.support.appserver import mock_provider_args
from tests.support.rpcclient import RpcClient
from tests.support.wsclient import SocketServer, WsClient
from tether_testing.fake_responses import FakeResponsesServer

StartSocketServer = Callable[..., Awaitable[SocketServer]]
Connect = Callable[[], Awaitable[RpcClient]]


@pytest.fixture
async def socket_server(tmp_path: Path, fake_model: FakeResponsesServer) -> AsyncIterator[StartSocketServer]:
    """Start `tether app-server` with the given flags (give `--listen`); SIGTERM after the test."""
    servers: list[SocketServer] = []

    async def start(
        *args: str, home: Path | None = None, ready: bool = True, preexec: Callable[[], None] | None = None
    ) -> SocketServer:
        full = [*mock_provider_args(fake_model.base_url), *args]
        server = await SocketServer.start(home or tmp_path / "home", full, ready=ready, preexec=preexec)
        servers.append(server)
        return server

    yield start
    for server in servers:
        if server.proc.returncode is None:
            await server.stop()


@pytest.fixture
async def clients() -> AsyncIterator[list[WsClient]]:
    """WebSocket clients a test opened; closed and checked against the reference schema afterwards."""
    opened: list[WsClient] = []
    yield opened
    for client in opened:
        await client.close(check=False)
    for client in opened:
        client.check()


@pytest.fixture(params=["stdio", "unix", "ws"])
async def connect(
    request: pytest.FixtureRequest,
    start_server: StartServer,
    socket_server: StartSocketServer,
    clients: list[WsClient],
) -> Connect:
    """A factory of initialized clients of one server, over the transport named by the parameter."""
    transport: str = request.param
    if transport == "stdio":

        async def over_stdio() -> RpcClient:
            return await start_server()

        return over_stdio
    server = await socket_server("--listen", "unix://" if transport == "unix" else "ws://127.0.0.1:0")

    async def over_socket() -> RpcClient:
        client = await (server.connect_unix() if transport == "unix" else server.connect_ws())
        clients.append(client)
        await client.initialize()
        return client

    return over_socket
