"""Sockets that never complete their upgrade cannot lock the owner out of the daemon.

The attack: another local user opens a thousand TCP connections to the loopback listener and sends
nothing. Uncounted until their upgrade, they took the daemon's file descriptors until nobody (the
owner included, on any transport) could connect. Now each waits in a pre-auth pool, capped per
address and in all, where a newcomer displaces the oldest, and is closed after `--pre-auth-timeout`.
"""

from __future__ import annotations

import asyncio
import re
import resource
from pathlib import Path

from tests.integration.transports.conftest import StartSocketServer
from tests.support.rpcclient import WAIT_S
from tests.support.wsclient import SocketServer, WsClient

Idle = tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def _idle(server: SocketServer, local: str = "127.0.0.1") -> Idle:
    """A TCP connection to the listener that sends nothing."""
    host, port = server.ws_url.removeprefix("ws://").split(":")
    return await asyncio.open_connection(host, int(port), local_addr=(local, 0))


async def _closed_by_server(idle: Idle, within_s: float = WAIT_S) -> None:
    async with asyncio.timeout(within_s):
        assert await idle[0].read() == b""


async def _still_served(idle: Idle) -> None:
    """The connection is open: a health check sent on it now is answered."""
    reader, writer = idle
    writer.write(b"GET /readyz HTTP/1.1\r\nHost: tether\r\n\r\n")
    await writer.drain()
    async with asyncio.timeout(WAIT_S):
        assert (await reader.readline()).startswith(b"HTTP/1.1 200")


async def _owner_works(client: WsClient, clients: list[WsClient]) -> None:
    clients.append(client)
    await client.initialize()
    listed = await client.request("thread/loaded/list", {})
    assert listed["data"] == []


def _close(idles: list[Idle]) -> None:
    for _, writer in idles:
        writer.close()


async def test_idle_sockets_beyond_a_peers_share_or_the_pool_make_room_and_the_owner_gets_in(
    socket_server: StartSocketServer, clients: list[WsClient]
) -> None:
    server = await socket_server(
        *("--listen", "ws://127.0.0.1:0", "--listen", "unix://"),
        *("--max-connections-per-peer", "4", "--max-connections", "8", "--pre-auth-timeout", "600"),
    )
    flood = [await _idle(server) for _ in range(10)]
    try:
        # Four wait from 127.0.0.1 at most: the six oldest were closed, the newest are served.
        for idle in flood[:6]:
            await _closed_by_server(idle)
        await _still_served(flood[-1])

        # The owner's authenticated client gets in from the same address, and on the control socket.
        await _owner_works(await server.connect_ws(), clients)
        await _owner_works(await server.connect_unix(), clients)

        # From many addresses, the pool as a whole holds eight: the oldest go first.
        spread = [await _idle(server, f"127.0.0.{2 + i // 2}") for i in range(10)]
        flood += spread
        for idle in flood[6:9]:
            await _closed_by_server(idle)
        for idle in spread[:2]:
            await _closed_by_server(idle)
        await _still_served(spread[-1])
        await _owner_works(await server.connect_ws(), clients)
    finally:
        _close(flood)


def _few_open_files() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (300, 300))


async def test_a_flood_of_idle_sockets_does_not_exhaust_the_daemons_files(
    socket_server: StartSocketServer, clients: list[WsClient]
) -> None:
    # 300 descriptors in all: before, 400 idle sockets took every one and `accept()` failed for
    # everybody, the owner's control socket included, until websockets timed them out.
    server = await socket_server(
        *("--listen", "ws://127.0.0.1:0", "--listen", "unix://", "--max-connections", "64"),
        preexec=_few_open_files,
    )
    flood = [await _idle(server) for _ in range(400)]
    try:
        async with asyncio.timeout(5):
            owner = await server.connect_unix()
        await _owner_works(owner, clients)
        async with asyncio.timeout(5):
            remote = await server.connect_ws()
        await _owner_works(remote, clients)
    finally:
        _close(flood)


async def test_a_socket_that_does_not_complete_its_upgrade_is_closed_after_the_pre_auth_timeout(
    socket_server: StartSocketServer, clients: list[WsClient]
) -> None:
    server = await socket_server("--listen", "ws://127.0.0.1:0", "--pre-auth-timeout", "1")
    silent = await _idle(server)
    slow = await _idle(server)
    slow[1].write(b"GET / HTTP/1.1\r\nHost: tether\r\nUpgrade: websocket\r\n")  # and never the rest

    # Well before websockets' own 10 s handshake timeout.
    await _closed_by_server(silent, within_s=8)
    await _closed_by_server(slow, within_s=8)
    _close([silent, slow])
    await _owner_works(await server.connect_ws(), clients)


async def test_the_pre_auth_timeout_must_be_positive(socket_server: StartSocketServer) -> None:
    server = await socket_server("--listen", "ws://127.0.0.1:0", "--pre-auth-timeout", "0", ready=False)

    assert await server.wait() == 2
    assert "--pre-auth-timeout must be more than 0 seconds" in server.stderr()


def _low_open_files() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (200, hard))


async def test_the_daemon_raises_its_open_files_limit_for_both_pools(
    socket_server: StartSocketServer,
) -> None:
    server = await socket_server(
        "--listen", "ws://127.0.0.1:0", "--max-connections", "100", preexec=_low_open_files
    )

    limits = Path(f"/proc/{server.proc.pid}/limits").read_text()
    found = re.search(r"Max open files\s+(\d+)\s+(\d+|unlimited)", limits)
    assert found, limits
    hard = found.group(2)
    wanted = 2 * 100 + 1024
    assert int(found.group(1)) == (wanted if hard == "unlimited" else min(wanted, int(hard)))
