"""`tether doctor` as a user runs it: every check passing on a healthy home, and each one failing.

Failures are real: a world-writable home, a corrupt database, no bwrap on PATH, a closed port on
loopback, a missing key, a model the fake provider refuses.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from pathlib import Path
from typing import Any

from tests.conftest import StartServer
from tests.support.cli import run_tether
from tether_server.doctor.catalog import CHECKS
from tether_server.transports import unix
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

KEY = "sk-doctor-0123456789abcdef"
NO_ENV_KEY = {"OPENAI_API_KEY": ""}


def _provider(base_url: str, *, env_key: bool = True) -> list[str]:
    args = ["-c", 'model_provider="mock"', "-c", f'model_providers.mock.base_url="{base_url}"']
    if env_key:
        args += ["-c", 'model_providers.mock.env_key="OPENAI_API_KEY"']
    return [*args, "-c", 'model="gpt-test"']


async def _doctor(home: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    ran = await run_tether(home, "doctor", "--json", *args, env={**NO_ENV_KEY, **(env or {})}, within_s=90)
    report = json.loads(ran.stdout)
    return ran.status, {check["name"]: check for check in report["checks"]} | {"ok": report["ok"]}


async def _healthy_home(start_server: StartServer, tmp_path: Path) -> Path:
    """A home a daemon has run in (database created), with a key stored by `tether login`."""
    home = tmp_path / "home"
    server = await start_server(home=home)
    # A request waits for the daemon to load; a client that only initialized and left would not.
    await server.request("thread/loaded/list", {})
    await server.close()
    await run_tether(home, "login", "--with-api-key", stdin=KEY.encode())
    # What doctor asks of a home (the daemon creates it so; older versions left it to the umask).
    home.chmod(0o700)
    for path in home.glob("tether.sqlite*"):
        path.chmod(0o600)
    return home


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def test_a_healthy_installation_passes_every_check(
    start_server: StartServer, fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    home = await _healthy_home(start_server, tmp_path)
    fake_model.add(script.text_reply("OK"))

    status, checks = await _doctor(home, *_provider(fake_model.base_url), "--probe-model")

    assert [name for name in checks if name != "ok"] == [name for name, _ in CHECKS]
    assert {name: c["status"] for name, c in checks.items() if name != "ok"} == dict.fromkeys(
        (name for name, _ in CHECKS), "ok"
    )
    assert (status, checks["ok"]) == (0, True)
    assert checks["database"]["details"]["integrity"] == ["ok"]
    assert checks["provider-key"]["summary"] == "mock has an API key from stored credentials"
    assert fake_model.requests[0].body["max_output_tokens"] == 16
    assert fake_model.requests[0].header("authorization") == f"Bearer {KEY}"


async def test_text_output_is_one_line_per_check_with_its_fix(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o777)
    home.chmod(0o777)

    base = f"http://127.0.0.1:{_closed_port()}/v1"
    ran = await run_tether(home, "doctor", *_provider(base), env=NO_ENV_KEY)

    lines = ran.stdout.splitlines()
    assert ran.status == 1
    assert [line[7:].split()[0] for line in lines] == [name for name, _ in CHECKS]
    home_line = next(line for line in lines if " home " in line)
    assert home_line.startswith("[FAIL] home")
    assert f"-- fix: check its contents, then chmod 700 {home}" in home_line


async def test_each_broken_part_fails_its_check(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o777)  # anyone can plant files
    (home / "tether.sqlite").write_bytes(b"this is not a database" * 100)
    (home / "auth.json").write_text(json.dumps({"OPENAI_API_KEY": KEY}))
    (home / "auth.json").chmod(0o644)
    stale = unix.default_socket_path(home)
    unix.bind(stale, default=True).close()  # the file stays, nobody listens: a killed daemon's leftover
    env = {"PATH": str(tmp_path / "no-bwrap-here")}
    base = f"http://127.0.0.1:{_closed_port()}/v1"

    status, checks = await _doctor(home, *_provider(base), "--probe-model", env=env)

    assert status == 1 and checks["ok"] is False
    assert checks["home"]["status"] == "fail"
    assert "mode 0777" in checks["home"]["summary"]
    assert checks["database"]["status"] == "fail"
    assert "not a database" in checks["database"]["summary"]
    assert checks["sandbox"]["status"] == "fail"
    assert "bubblewrap (bwrap) is not installed" in checks["sandbox"]["summary"]
    assert checks["sandbox"]["fix"].startswith("install bubblewrap")
    assert checks["provider-endpoint"]["status"] == "fail"
    assert "ConnectError" in checks["provider-endpoint"]["summary"]
    assert checks["provider-model"]["status"] == "fail"
    assert checks["listeners"]["status"] == "warn"
    assert f"remove {stale}" in checks["listeners"]["fix"]
    assert checks["auth-files"]["status"] == "fail"
    assert checks["auth-files"]["fix"] == f"chmod 600 {home / 'auth.json'}"


async def test_a_missing_key_fails_and_the_model_probe_is_not_tried(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)

    _, checks = await _doctor(home, *_provider(fake_model.base_url), "--probe-model")

    assert checks["provider-key"]["status"] == "fail"
    assert checks["provider-key"]["summary"] == "mock: OPENAI_API_KEY is not set and no key is stored"
    assert "tether login --with-api-key" in checks["provider-key"]["fix"]
    assert checks["provider-model"]["status"] == "skip"
    assert fake_model.requests == []


async def test_a_refused_key_and_an_unknown_model_are_told_apart(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    fake_model.add(
        script.http_error(401, {"error": {"message": "Incorrect API key", "type": "invalid_request_error"}}),
        script.http_error(404, {"error": {"message": "no such model", "code": "model_not_found"}}),
    )
    env = {"OPENAI_API_KEY": "sk-wrong"}

    _, refused = await _doctor(home, *_provider(fake_model.base_url), "--probe-model", env=env)
    _, unknown = await _doctor(home, *_provider(fake_model.base_url), "--probe-model=gpt-nope", env=env)

    assert refused["provider-model"]["status"] == "fail"
    assert "unauthorized" in refused["provider-model"]["summary"]
    assert "tether login --with-api-key" in refused["provider-model"]["fix"]
    assert unknown["provider-model"]["summary"].startswith("gpt-nope: model not found")
    assert fake_model.requests[1].body["model"] == "gpt-nope"


async def test_config_problems_are_named(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "config.toml").write_text('sandbox_mode = "everything"\n')
    _, invalid = await _doctor(home)
    (home / "config.toml").write_text('modle = "gpt-5.5"\n')
    status, unknown = await _doctor(home)

    assert invalid["config"]["status"] == "fail"
    assert "sandbox_mode" in invalid["config"]["summary"]
    assert invalid["provider-key"]["status"] == "skip"
    assert unknown["config"]["status"] == "warn"
    assert "`modle`" in unknown["config"]["summary"]
    assert status == 1


async def test_database_schema_newer_than_this_tether_fails(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    conn = sqlite3.connect(home / "tether.sqlite")
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    os.chmod(home / "tether.sqlite", 0o600)

    _, checks = await _doctor(home)

    assert checks["database"]["status"] == "fail"
    assert "has schema 99" in checks["database"]["summary"]
    assert checks["database"]["fix"].startswith("upgrade Tether")


async def test_a_readable_home_and_a_corrupt_auth_file_are_reported(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o755)
    (home / "auth.json").write_text("{oops")
    (home / "auth.json").chmod(0o600)

    _, checks = await _doctor(home)

    assert checks["home"]["status"] == "warn"
    assert checks["home"]["fix"] == f"chmod 700 {home}"
    assert checks["auth-files"]["status"] == "fail"
    assert "not valid JSON" in checks["auth-files"]["summary"]


async def test_keyring_mode_without_a_keyring_fails_auth_files(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    env = {"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}

    _, checks = await _doctor(home, "-c", 'cli_auth_credentials_store="keyring"', env=env)

    assert checks["auth-files"]["status"] == "fail"
    assert "no usable system keyring" in checks["auth-files"]["summary"]
