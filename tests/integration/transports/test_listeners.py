"""What the listeners answer besides JSON-RPC: health checks, refusals, limits, the control socket file."""

from __future__ import annotations

import asyncio
import json
import socket
import stat
from pathlib import Path

import httpx

from tests.integration.transports.conftest import StartSocketServer
from tests.support.rpcclient import WAIT_S
from tests.support.wsclient import WsClient
from tether_server.transports import unix


def _http_base(ws_url: str) -> str:
    return "http" + ws_url.removeprefix("ws")


async def test_health_endpoints_answer_and_other_plain_requests_are_bad(
    socket_server: StartSocketServer,
) -> None:
    server = await socket_server("--listen", "ws://127.0.0.1:0")
    async with httpx.AsyncClient(base_url=_http_base(server.ws_url)) as http:
        ready = await http.get("/readyz")
        healthy = await http.get("/healthz")
        other = await http.get("/anything")
        with_origin = await http.get("/healthz", headers={"Origin": "http://localhost:3000"})

    assert (ready.status_code, healthy.status_code, other.status_code) == (200, 200, 400)
    assert (with_origin.status_code, with_origin.text) == (403, "")


async def test_the_control_socket_is_private_and_advertises_the_message_limit(
    socket_server: StartSocketServer, clients: list[WsClient]
) -> None:
    server = await socket_server("--listen", "unix://")
    assert server.unix_path == server.home / "app-server-control" / "app-server-control.sock"
    client = await server.connect_unix()
    clients.append(client)

    assert client.ws.response is not None
    assert client.ws.response.headers["x-codex-websocket-max-unfragmented-message-bytes"] == "16777216"
    assert stat.S_IMODE(server.unix_path.stat().st_mode) == 0o600
    assert stat.S_IMODE(server.unix_path.parent.stat().st_mode) == 0o700
    await client.initialize()


async def test_the_tcp_listener_has_no_control_socket_header(socket_server: StartSocketServer) -> None:
    server = await socket_server("--listen", "ws://127.0.0.1:0")
    client = await server.connect_ws()
    assert client.ws.response is not None
    assert "x-codex-websocket-max-unfragmented-message-bytes" not in client.ws.response.headers
    await client.close()


async def test_binary_frames_are_dropped_and_text_frames_still_answered(
    socket_server: StartSocketServer, clients: list[WsClient]
) -> None:
    server = await socket_server("--listen", "unix://")
    client = await server.connect_unix()
    clients.append(client)
    await client.initialize()

    mark = client.mark()
    await client.ws.send(json.dumps({"id": 99, "method": "thread/loaded/list", "params": {}}).encode())
    reply = await client.call("thread/loaded/list", {})

    assert "result" in reply
    assert [m.get("id") for m in client.since(mark)] == [reply["id"]]


async def test_a_message_over_the_size_limit_closes_the_connection_with_a_reason(
    socket_server: StartSocketServer,
) -> None:
    server = await socket_server("--listen", "ws://127.0.0.1:0", "--max-message-bytes", "4096")
    client = await server.connect_ws()
    await client.initialize()

    await client.send_raw(
        b'{"id": 1, "method": "thread/loaded/list", "params": {"pad": "' + b"x" * 5000 + b'"}}'
    )
    await client.closed()

    assert client.ws.close_code == 1009
    assert client.ws.close_reason and "4096" in client.ws.close_reason


async def test_a_stale_socket_file_is_replaced_and_a_live_one_refused(
    socket_server: StartSocketServer, tmp_path: Path
) -> None:
    path = tmp_path / "ctl.sock"
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(path))
    stale.close()  # the file stays, nobody listens: what a crashed daemon leaves behind

    first = await socket_server("--listen", f"unix://{path}", home=tmp_path / "one")
    second = await socket_server("--listen", f"unix://{path}", home=tmp_path / "two", ready=False)

    assert await second.wait() == 2
    assert f"app-server control socket is already in use at {path}" in second.stderr()
    client = await first.connect_unix()
    await client.initialize()
    await client.close()


async def test_plain_jsonl_on_the_control_socket_gets_no_answer(socket_server: StartSocketServer) -> None:
    server = await socket_server("--listen", "unix://")
    assert server.unix_path is not None
    sock = unix.connect(server.unix_path)
    sock.setblocking(False)
    reader, writer = await asyncio.open_unix_connection(sock=sock)
    writer.write(b'{"id":1,"method":"initialize","params":{}}\n')
    await writer.drain()
    async with asyncio.timeout(WAIT_S):
        answer = await reader.read()  # until the server closes
    writer.close()

    assert b'"id"' not in answer


async def test_a_ping_is_answered_with_a_pong(
    socket_server: StartSocketServer, clients: list[WsClient]
) -> None:
    server = await socket_server("--listen", "unix://")
    client = await server.connect_unix()
    clients.append(client)

    pong = await client.ws.ping(b"are you there")
    async with asyncio.timeout(WAIT_S):
        latency = await pong

    assert latency >= 0
