"""TLS on the WebSocket listener, the managed-daemon shutdown path, and the paths kept from sandboxes."""

from __future__ import annotations

import asyncio
import ssl
from pathlib import Path

import pytest
from websockets.asyncio.client import connect, unix_connect
from websockets.exceptions import InvalidStatus

from tests.integration.transports.conftest import StartSocketServer
from tests.support.wsclient import WsClient
from tether_server.serve_options import ServeOptions, parse_listen, private_paths
from tether_server.transports import unix
from tether_server.transports.ws_auth import WsAuthFlags, load_auth


async def _self_signed(folder: Path) -> tuple[Path, Path]:
    cert, key = folder / "cert.pem", folder / "key.pem"
    proc = await asyncio.create_subprocess_exec(
        *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost"),
        *("-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    assert await proc.wait() == 0
    return cert, key


async def test_a_wss_listener_serves_json_rpc_over_tls(
    socket_server: StartSocketServer, tmp_path: Path
) -> None:
    cert, key = await _self_signed(tmp_path)
    server = await socket_server(
        "--listen", "wss://127.0.0.1:0", "--tls-cert", str(cert), "--tls-key", str(key)
    )
    trust = ssl.create_default_context(cafile=str(cert))

    with pytest.raises(InvalidStatus) as refused:
        await connect(server.ws_url, ssl=trust, compression=None)
    assert refused.value.response.status_code == 401
    auth = {"Authorization": f"Bearer {server.token()}"}
    ws = await connect(server.ws_url, ssl=trust, compression=None, additional_headers=auth)
    client = WsClient(ws)
    await client.initialize()
    await client.close()

    assert server.ws_url.startswith("wss://127.0.0.1:")


async def test_an_unmanaged_server_refuses_the_daemon_shutdown_path(socket_server: StartSocketServer) -> None:
    server = await socket_server("--listen", "unix://")
    assert server.unix_path is not None
    sock = unix.connect(server.unix_path)
    sock.setblocking(False)

    with pytest.raises(InvalidStatus) as refused:
        await unix_connect(sock=sock, uri="ws://localhost/daemon/shutdown")

    assert refused.value.response.status_code == 403
    assert refused.value.response.body == b"unmanaged server"


def test_the_control_directory_sockets_and_credentials_are_private(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("secret-token")
    options = ServeOptions(
        listens=[parse_listen("unix://", tmp_path), parse_listen(f"unix://{tmp_path}/other.sock", tmp_path)],
        auth=load_auth(WsAuthFlags(mode="capability-token", token_file=token)),
        tls_key=tmp_path / "key.pem",
    )

    paths = private_paths(tmp_path, options)

    assert paths == [tmp_path / "app-server-control", tmp_path / "other.sock", token, tmp_path / "key.pem"]
