"""WebSocket auth: Codex's two modes, its 401 reasons, Origin refusal and the start-up refusals."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Any

import jwt

from tests.integration.transports.conftest import StartSocketServer
from tests.support.wsclient import SocketServer, WsClient, http_status

TOKEN = "capability-token-for-tests"
SECRET = b"0123456789abcdef" * 4


async def _accepts(server: SocketServer, token: str) -> bool:
    client = await WsClient.connect_ws(server.ws_url, token=token)
    try:
        await client.initialize()
    finally:
        await client.close()
    return True


async def test_a_capability_token_is_required_and_checked(
    socket_server: StartSocketServer, tmp_path: Path
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    server = await socket_server(
        "--listen", "ws://127.0.0.1:0", "--ws-auth", "capability-token", "--ws-token-file", str(token_file)
    )

    missing = await http_status(server.ws_url)
    malformed = await http_status(server.ws_url, headers={"Authorization": f"Basic {TOKEN}"})
    wrong = await http_status(server.ws_url, token="not-the-token")

    assert missing[:2] == (401, "missing websocket bearer token")
    assert missing[2]["Content-Type"] == "text/plain; charset=utf-8"
    assert malformed[:2] == (401, "invalid authorization header")
    assert wrong[:2] == (401, "invalid websocket bearer token")
    assert await _accepts(server, TOKEN)


async def test_a_capability_token_can_be_given_as_its_sha256(socket_server: StartSocketServer) -> None:
    digest = hashlib.sha256(TOKEN.encode()).hexdigest()
    server = await socket_server(
        "--listen", "ws://127.0.0.1:0", "--ws-auth", "capability-token", "--ws-token-sha256", digest
    )

    assert (await http_status(server.ws_url, token=TOKEN + "x"))[:2] == (
        401,
        "invalid websocket bearer token",
    )
    assert await _accepts(server, TOKEN)


def _jwt(claims: dict[str, Any], *, key: bytes = SECRET, alg: str = "HS256") -> str:
    return jwt.encode(claims, key, algorithm=alg)


def _unsigned(claims: dict[str, Any]) -> str:
    # "" is PyJWT's no-key for alg "none" (its stubs refuse None once cryptography is installed).
    return jwt.encode(claims, "", algorithm="none")


async def test_signed_bearer_tokens_are_refused_with_the_reason(
    socket_server: StartSocketServer, tmp_path: Path
) -> None:
    secret_file = tmp_path / "secret"
    secret_file.write_bytes(SECRET + b"\n")
    server = await socket_server(
        *("--listen", "ws://127.0.0.1:0", "--ws-auth", "signed-bearer-token"),
        *("--ws-shared-secret-file", str(secret_file), "--ws-issuer", "tests", "--ws-audience", "ide"),
    )
    now = int(time.time())
    good = {"exp": now + 300, "iss": "tests", "aud": ["other", "ide"]}
    cases = {
        "malformed": ("not.a.jwt", "invalid websocket jwt"),
        "bad signature": (_jwt(good, key=b"x" * 64), "invalid websocket jwt"),
        "HS384": (_jwt(good, alg="HS384"), "invalid websocket jwt"),
        "alg none": (_unsigned(good), "invalid websocket jwt"),
        "no exp": (_jwt({"iss": "tests", "aud": "ide"}), "invalid websocket jwt"),
        "expired": (_jwt({**good, "exp": now - 120}), "expired websocket jwt"),
        "not yet valid": (_jwt({**good, "nbf": now + 120}), "websocket jwt is not valid yet"),
        "wrong issuer": (_jwt({**good, "iss": "someone"}), "websocket jwt issuer mismatch"),
        "wrong audience": (_jwt({**good, "aud": "web"}), "websocket jwt audience mismatch"),
    }

    refusals = {
        name: (await http_status(server.ws_url, token=token))[:2] for name, (token, _) in cases.items()
    }

    assert refusals == {name: (401, reason) for name, (_, reason) in cases.items()}
    within_skew = {**good, "exp": now - 5, "nbf": now + 5}
    assert await _accepts(server, _jwt(within_skew))


async def test_any_request_with_an_origin_is_forbidden_before_auth(socket_server: StartSocketServer) -> None:
    digest = hashlib.sha256(TOKEN.encode()).hexdigest()
    server = await socket_server(
        "--listen", "ws://127.0.0.1:0", "--ws-auth", "capability-token", "--ws-token-sha256", digest
    )

    status, body, _ = await http_status(
        server.ws_url, token=TOKEN, headers={"Origin": "https://evil.example"}
    )

    assert (status, body) == (403, "")


async def _start_fails(socket_server: StartSocketServer, *args: str) -> str:
    server = await socket_server(*args, ready=False)
    assert await server.wait() == 2
    return server.stderr()


async def test_a_short_shared_secret_stops_the_server_from_starting(
    socket_server: StartSocketServer, tmp_path: Path
) -> None:
    secret_file = tmp_path / "secret"
    secret_file.write_bytes(b"too short\n")

    stderr = await _start_fails(
        socket_server,
        *("--listen", "ws://127.0.0.1:0", "--ws-auth", "signed-bearer-token"),
        *("--ws-shared-secret-file", str(secret_file)),
    )

    assert f"signed websocket bearer secret {secret_file} must be at least 32 bytes" in stderr


async def test_a_non_loopback_listener_without_auth_refuses_to_start(
    socket_server: StartSocketServer,
) -> None:
    stderr = await _start_fails(socket_server, "--listen", "ws://0.0.0.0:4590")

    assert (
        "refusing to start non-loopback websocket listener 0.0.0.0:4590 without auth; "
        "configure `--ws-auth capability-token` or `--ws-auth signed-bearer-token`"
    ) in stderr


async def test_flags_of_the_other_auth_mode_are_a_startup_error(
    socket_server: StartSocketServer, tmp_path: Path
) -> None:
    secret_file = tmp_path / "secret"
    secret_file.write_bytes(SECRET)

    stderr = await _start_fails(
        socket_server,
        *("--listen", "ws://127.0.0.1:0", "--ws-auth", "capability-token"),
        *("--ws-token-sha256", "00" * 32, "--ws-shared-secret-file", str(secret_file)),
    )

    assert "--ws-shared-secret-file cannot be used with `--ws-auth capability-token`" in stderr
