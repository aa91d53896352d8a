"""A TCP listener always wants auth, loopback included; malformed auth and connection floods are refused.

The attack: any local process (a sandboxed command with network on, another user's script) connects
to the daemon's loopback WebSocket and drives it, e.g. `command/exec` with `dangerFullAccess`.
"""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.integration.transports.conftest import StartSocketServer
from tests.support.wsclient import SocketServer, WsClient, http_status
from tether_client import Client

FULL_ACCESS = {"type": "dangerFullAccess"}


async def test_loopback_ws_without_the_token_is_refused_and_the_generated_token_works(
    socket_server: StartSocketServer, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    server = await socket_server("--listen", "ws://127.0.0.1:0", home=home)

    # The attacker knows the port but not the token: no upgrade, nothing runs.
    assert (await http_status(server.ws_url))[:2] == (401, "missing websocket bearer token")
    assert (await http_status(server.ws_url, token="guess"))[:2] == (401, "invalid websocket bearer token")

    token_file = home / "ws-token"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    await server.logged(f"auth: bearer token in {token_file}")
    client = await server.connect_ws()
    await client.initialize()
    result = await client.request("command/exec", {"command": ["true"], "sandboxPolicy": FULL_ACCESS})
    assert result["exitCode"] == 0
    await client.close()


async def test_the_generated_token_is_replaced_at_every_start_and_the_old_one_is_refused(
    socket_server: StartSocketServer, tmp_path: Path
) -> None:
    # A token that leaked (to another user holding the port while the daemon was down) must not
    # open the next daemon run.
    home = tmp_path / "home"
    first = await socket_server("--listen", "ws://127.0.0.1:0", home=home)
    leaked = first.token()
    assert leaked

    # A second daemon in the same home writes its own token; both accept the one in the file now.
    second = await socket_server("--listen", "ws://127.0.0.1:0", home=home)
    current = second.token()
    assert current and current != leaked
    for server in (first, second):
        assert (await http_status(server.ws_url, token=leaked))[:2] == (401, "invalid websocket bearer token")
        assert (await http_status(server.ws_url, token=current))[0] == 101
    await first.stop()
    await second.stop()

    third = await socket_server("--listen", "ws://127.0.0.1:0", home=home)
    assert third.token() not in (leaked, current)
    for old in (leaked, current):
        assert (await http_status(third.ws_url, token=old))[:2] == (401, "invalid websocket bearer token")
    assert (await http_status(third.ws_url, token=third.token()))[0] == 101


async def test_the_python_sdk_reads_the_generated_token_for_a_loopback_url(
    socket_server: StartSocketServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    server = await socket_server("--listen", "ws://127.0.0.1:0", home=home)
    monkeypatch.setenv("TETHER_HOME", str(home))

    async with await Client.connect(server.ws_url) as client:
        listed = await client.request_raw("thread/loaded/list", {})
    assert listed["data"] == []


async def test_ws_auth_none_is_allowed_on_loopback_with_a_warning(socket_server: StartSocketServer) -> None:
    server = await socket_server("--listen", "ws://127.0.0.1:0", "--ws-auth", "none")

    await server.logged(f"WARNING: {server.ws_url} accepts unauthenticated connections")
    client = await WsClient.connect_ws(server.ws_url)
    await client.initialize()
    await client.close()


async def test_ws_auth_none_is_refused_off_loopback(socket_server: StartSocketServer) -> None:
    server = await socket_server("--listen", "ws://0.0.0.0:0", "--ws-auth", "none", ready=False)

    assert await server.wait() == 2
    assert "refusing to start non-loopback websocket listener 0.0.0.0:0 without auth" in server.stderr()


async def _raw_upgrade(url: str, headers: list[tuple[str, str]]) -> bytes:
    """Send an upgrade request by hand (clients will not send a header twice) and read the status line."""
    host, port = url.removeprefix("ws://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    lines = [
        "GET / HTTP/1.1",
        f"Host: {host}:{port}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version: 13",
        *(f"{name}: {value}" for name, value in headers),
    ]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    await writer.drain()
    async with asyncio.timeout(15):
        status = await reader.readline()
    writer.close()
    return status


async def test_two_authorization_headers_get_400_and_one_log_line(socket_server: StartSocketServer) -> None:
    server = await socket_server("--listen", "ws://127.0.0.1:0")
    bearer = ("Authorization", f"Bearer {server.token()}")

    status = await _raw_upgrade(server.ws_url, [bearer, bearer])

    assert status.startswith(b"HTTP/1.1 400")
    await server.logged("multiple authorization headers")
    client = await server.connect_ws()  # the daemon still serves
    await client.initialize()
    await client.close()
    refusals = [line for line in server.lines if "multiple authorization headers" in line]
    assert len(refusals) == 1
    assert "Traceback" not in server.stderr()


async def test_connection_caps_refuse_with_503_and_other_peers_still_connect(
    socket_server: StartSocketServer, clients: list[WsClient]
) -> None:
    server = await socket_server(
        *("--listen", "ws://127.0.0.1:0", "--listen", "unix://"),
        *("--max-connections-per-peer", "2", "--max-connections", "4"),
    )
    clients += [await server.connect_ws(), await server.connect_ws()]

    status, body, _ = await http_status(server.ws_url, token=server.token())
    assert (status, body) == (503, "too many connections from this address; retry later\n")

    # Another address (and the owner's control socket) is not held back by that peer's flood.
    auth = {"Authorization": f"Bearer {server.token()}"}
    other = WsClient(await connect(server.ws_url, additional_headers=auth, local_addr=("127.0.0.2", 0)))
    clients.append(other)
    await other.initialize()
    owner = await server.connect_unix()
    clients.append(owner)
    await owner.initialize()

    # Four connections in all: the total cap holds for every listener.
    with pytest.raises(InvalidStatus) as refused:
        await server.connect_unix()
    assert refused.value.response.status_code == 503

    # A closed connection gives its slot back.
    first = clients.pop(0)
    await first.close()
    again = await server.connect_ws()
    clients.append(again)
    await again.initialize()


async def test_unix_socket_is_private_to_its_owner(socket_server: StartSocketServer, tmp_path: Path) -> None:
    server: SocketServer = await socket_server("--listen", "unix://", home=tmp_path / "home")
    assert server.unix_path is not None

    assert stat.S_IMODE(server.unix_path.stat().st_mode) == 0o600
    assert stat.S_IMODE(server.unix_path.parent.stat().st_mode) == 0o700
