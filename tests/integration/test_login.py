"""`tether login` / `logout` / `login status` and a daemon that uses the stored key.

Real processes throughout: the CLI as a user runs it, the daemon over stdio, the fake model
recording the Authorization header each model request carried.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

from tests.conftest import StartServer
from tests.support.cli import run_tether
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

KEY = "sk-test-0123456789abcdef"
# The daemon must find no key in its environment: these tests are about the stored one.
NO_ENV_KEY = {"OPENAI_API_KEY": ""}
OPENAI_AUTH = ("-c", 'model_providers.mock.env_key="OPENAI_API_KEY"')
PLAINTEXT_KEYRING = "keyrings.alt.file.PlaintextKeyring"


def _keyring_env(tmp_path: Path, backend: str = PLAINTEXT_KEYRING) -> dict[str, str]:
    return {"PYTHON_KEYRING_BACKEND": backend, "XDG_DATA_HOME": str(tmp_path / "xdg"), **NO_ENV_KEY}


async def test_login_stores_the_key_in_auth_json_that_only_its_owner_can_read(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "auth.json").write_text("{}")
    (home / "auth.json").chmod(0o644)

    ran = await run_tether(home, "login", "--with-api-key", stdin=f"{KEY}\n".encode())

    assert ran.status == 0, ran.stderr
    assert "Successfully logged in" in ran.stderr
    auth = home / "auth.json"
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600
    assert json.loads(auth.read_text())["OPENAI_API_KEY"] == KEY
    status = await run_tether(home, "login", "status", env=NO_ENV_KEY)
    assert status.status == 0
    assert "Logged in using an API key - sk-test-***bcdef" in status.stderr
    assert KEY not in status.stderr + status.stdout


async def test_logout_removes_the_key_and_status_then_says_not_logged_in(tmp_path: Path) -> None:
    home = tmp_path / "home"
    await run_tether(home, "login", "--with-api-key", stdin=KEY.encode())

    first = await run_tether(home, "logout")
    second = await run_tether(home, "logout")
    status = await run_tether(home, "login", "status")

    assert (first.status, first.stderr.strip()) == (0, "Successfully logged out")
    assert (second.status, second.stderr.strip()) == (0, "Not logged in")
    assert not (home / "auth.json").exists()
    assert (status.status, status.stderr.strip()) == (1, "Not logged in")


async def test_login_refuses_an_empty_stdin_and_chatgpt_sign_in(tmp_path: Path) -> None:
    home = tmp_path / "home"

    empty = await run_tether(home, "login", "--with-api-key", stdin=b"  \n")
    chatgpt = await run_tether(home, "login")

    assert empty.status == 2
    assert "No API key provided via stdin." in empty.stderr
    assert chatgpt.status == 2
    assert "ChatGPT sign-in is not supported" in chatgpt.stderr
    assert not (home / "auth.json").exists()


async def test_the_keyring_store_keeps_the_key_out_of_the_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('cli_auth_credentials_store = "keyring"\n')
    env = _keyring_env(tmp_path)

    ran = await run_tether(home, "login", "--with-api-key", stdin=KEY.encode(), env=env)
    status = await run_tether(home, "login", "status", env=env)

    assert ran.status == 0, ran.stderr
    assert "keyring keyrings.alt.file.PlaintextKeyring" in ran.stderr
    assert not (home / "auth.json").exists()
    assert "[Tether_20Auth]" in (tmp_path / "xdg" / "python_keyring" / "keyring_pass.cfg").read_text()
    assert status.status == 0 and "sk-test-***bcdef" in status.stderr

    out = await run_tether(home, "logout", env=env)
    after = await run_tether(home, "login", "status", env=env)
    assert (out.status, out.stderr.strip()) == (0, "Successfully logged out")
    assert after.status == 1


async def test_keyring_mode_without_a_usable_keyring_fails_and_stores_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = _keyring_env(tmp_path, "keyring.backends.fail.Keyring")

    store = ("-c", 'cli_auth_credentials_store="keyring"')
    ran = await run_tether(home, "login", "--with-api-key", *store, stdin=KEY.encode(), env=env)

    assert ran.status == 2
    assert "no usable system keyring" in ran.stderr
    assert 'cli_auth_credentials_store = "file" or "auto"' in ran.stderr
    assert not (home / "auth.json").exists()


async def test_auto_mode_falls_back_to_auth_json_without_a_system_keyring(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = _keyring_env(tmp_path)  # a plaintext file "keyring" is no system keyring

    store = ("-c", 'cli_auth_credentials_store="auto"')
    ran = await run_tether(home, "login", "--with-api-key", *store, stdin=KEY.encode(), env=env)

    assert ran.status == 0, ran.stderr
    assert json.loads((home / "auth.json").read_text())["OPENAI_API_KEY"] == KEY
    assert not (tmp_path / "xdg" / "python_keyring").exists()


async def test_a_turn_succeeds_with_only_the_stored_key(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    await run_tether(home, "login", "--with-api-key", stdin=KEY.encode())
    fake_model.add(script.text_reply("hi"))
    server = await start_server(*OPENAI_AUTH, home=home, env=NO_ENV_KEY)

    thread_id = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]})
    done = await server.notification("turn/completed", after=mark)

    assert done["params"]["turn"]["status"] == "completed"
    assert fake_model.requests[0].header("authorization") == f"Bearer {KEY}"


async def test_a_turn_uses_the_stored_key_from_the_keyring(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    env = _keyring_env(tmp_path)
    store = ("-c", 'cli_auth_credentials_store="keyring"')
    await run_tether(home, "login", "--with-api-key", *store, stdin=KEY.encode(), env=env)
    fake_model.add(script.text_reply("hi"))
    server = await start_server(*OPENAI_AUTH, *store, home=home, env=env)

    account = await server.request("account/read", {})
    thread_id = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]})
    await server.notification("turn/completed", after=mark)

    assert account["account"] == {"type": "apiKey"}
    assert fake_model.requests[0].header("authorization") == f"Bearer {KEY}"


async def test_login_explains_that_an_ephemeral_store_lives_in_the_daemon_only(tmp_path: Path) -> None:
    home = tmp_path / "home"
    store = ("-c", 'cli_auth_credentials_store="ephemeral"')

    ran = await run_tether(home, "login", "--with-api-key", *store, stdin=KEY.encode())

    assert ran.status == 2
    assert "send account/login/start to the daemon" in ran.stderr
    assert not (home / "auth.json").exists()
