"""The container image's entrypoint and health check, run outside a container with a scratch home.

The scripts are the ones the Dockerfile copies in; the daemon is the real one (fake model, loopback).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import stat
import sys
from pathlib import Path

import httpx

from tests.support.appserver import WAIT_S, mock_provider_args
from tests.support.wsclient import STARTUP_S, WsClient, http_status
from tether_testing.fake_responses import FakeResponsesServer

CONTAINER = Path(__file__).resolve().parents[2] / "packaging" / "container"
ENTRYPOINT = CONTAINER / "entrypoint.sh"
HEALTHCHECK = CONTAINER / "healthcheck.sh"
TETHER = Path(sys.executable).with_name("tether")


def _env(home: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "TETHER_HOME": str(home),
        "TETHER_LISTEN": "ws://127.0.0.1:0",
        "TETHER_BIN": str(TETHER),
        "TETHER_PYTHON": sys.executable,
        **extra,
    }


async def _healthcheck(port: int) -> tuple[int, str]:
    """Run the health check as Docker would, for a container listening on 0.0.0.0:port."""
    proc = await asyncio.create_subprocess_exec(
        "sh",
        str(HEALTHCHECK),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "TETHER_LISTEN": f"ws://0.0.0.0:{port}", "TETHER_PYTHON": sys.executable},
    )
    async with asyncio.timeout(WAIT_S):
        _, err = await proc.communicate()
    return int(proc.returncode or 0), err.decode()


async def _listening_url(proc: asyncio.subprocess.Process, lines: list[str]) -> str:
    assert proc.stderr is not None
    async with asyncio.timeout(STARTUP_S):
        while True:
            line = (await proc.stderr.readline()).decode()
            if not line:
                raise AssertionError("the entrypoint exited before listening:\n" + "".join(lines))
            lines.append(line)
            if line.startswith("listening on: ws://"):
                return line.removeprefix("listening on: ").strip()


async def test_the_entrypoint_makes_a_private_home_and_token_and_the_health_check_follows_the_daemon(
    tmp_path: Path, fake_model: FakeResponsesServer
) -> None:
    home = tmp_path / "volume" / "tether"
    proc = await asyncio.create_subprocess_exec(
        "sh",
        str(ENTRYPOINT),
        *mock_provider_args(fake_model.base_url),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env=_env(home, TETHER_METRICS="1"),
    )
    lines: list[str] = []
    try:
        url = await _listening_url(proc, lines)
        port = int(url.rsplit(":", 1)[1])
        assert await _healthcheck(port) == (0, "")

        assert stat.S_IMODE(home.stat().st_mode) == 0o700
        token_file = home / "ws-token"
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        token = token_file.read_text().strip()
        assert len(token) >= 40
        assert any(f"generated a bearer token in {token_file}" in line for line in lines)

        assert (await http_status(url))[:2] == (401, "missing websocket bearer token")
        client = await WsClient.connect_ws(url, token=token)
        await client.initialize()
        await client.request("thread/loaded/list", {})
        await client.close()
        async with httpx.AsyncClient() as http:
            scraped = await http.get(
                f"http://127.0.0.1:{port}/metrics", headers={"Authorization": f"Bearer {token}"}
            )
        assert scraped.status_code == 200
        assert "tether_rpc_requests_total" in scraped.text
        # The control socket is there for `docker exec -i … tether app-server proxy`.
        assert (home / "app-server-control" / "app-server-control.sock").is_socket()

        # The entrypoint exec'd the daemon: SIGTERM to it (what `docker stop` sends) drains and exits 0.
        proc.send_signal(signal.SIGTERM)
        async with asyncio.timeout(STARTUP_S):
            assert await proc.wait() == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()

    code, err = await _healthcheck(port)
    assert code == 1
    assert f"127.0.0.1:{port}/readyz" in err


async def test_a_configured_token_file_that_is_missing_stops_the_entrypoint(tmp_path: Path) -> None:
    missing = tmp_path / "secrets" / "ws-token"
    proc = await asyncio.create_subprocess_exec(
        "sh",
        str(ENTRYPOINT),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env=_env(tmp_path / "home", TETHER_WS_TOKEN_FILE=str(missing)),
    )
    async with asyncio.timeout(WAIT_S):
        _, err = await proc.communicate()
    assert proc.returncode == 2
    assert f"TETHER_WS_TOKEN_FILE={missing} is missing or empty" in err.decode()


async def test_a_token_given_as_a_secret_is_the_one_the_listener_accepts(
    tmp_path: Path, fake_model: FakeResponsesServer
) -> None:
    secret = tmp_path / "secrets" / "ws-token"
    secret.parent.mkdir()
    secret.write_text("a-token-from-a-compose-secret-0123456789\n")
    home = tmp_path / "home"
    proc = await asyncio.create_subprocess_exec(
        "sh",
        str(ENTRYPOINT),
        *mock_provider_args(fake_model.base_url),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env=_env(home, TETHER_WS_TOKEN_FILE=str(secret)),
    )
    try:
        url = await _listening_url(proc, [])
        assert (await http_status(url, token="guess"))[0] == 401
        assert (await http_status(url, token="a-token-from-a-compose-secret-0123456789"))[0] == 101
        assert not (home / "ws-token").exists()
    finally:
        proc.send_signal(signal.SIGTERM)
        async with asyncio.timeout(STARTUP_S):
            await proc.wait()


async def test_a_tether_command_given_to_the_entrypoint_runs_instead_of_the_daemon(tmp_path: Path) -> None:
    proc = await asyncio.create_subprocess_exec(
        "sh",
        str(ENTRYPOINT),
        "doctor",
        "--json",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=_env(tmp_path / "home"),
    )
    async with asyncio.timeout(WAIT_S):
        out, _ = await proc.communicate()
    report = json.loads(out)
    assert {check["name"] for check in report["checks"]} >= {"home", "database", "sandbox"}
    assert not (tmp_path / "home" / "ws-token").exists()  # no daemon set-up for a command
