"""account/login/start, account/logout and account/read against a real daemon over stdio."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import StartServer
from tests.support.appserver import AppServer, RpcErrorReply
from tests.support.cli import run_tether
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

KEY = "sk-proto-0123456789abcdef"
NO_ENV_KEY = {"OPENAI_API_KEY": ""}
OPENAI_AUTH = ("-c", 'model_providers.mock.env_key="OPENAI_API_KEY"')


async def _turn(server: AppServer, thread_id: str) -> dict[str, Any]:
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]})
    done = await server.notification("turn/completed", after=mark)
    turn: dict[str, Any] = done["params"]["turn"]
    return turn


async def test_account_read_follows_login_and_logout(start_server: StartServer, tmp_path: Path) -> None:
    server = await start_server(*OPENAI_AUTH, env=NO_ENV_KEY)
    before = await server.request("account/read", {})

    mark = server.mark()
    result = await server.request("account/login/start", {"type": "apiKey", "apiKey": KEY})
    updated = await server.notification("account/updated", after=mark)
    completed = await server.notification("account/login/completed", after=mark)
    during = await server.request("account/read", {})
    auth = server.home / "auth.json"
    stored = json.loads(auth.read_text())["OPENAI_API_KEY"]
    mode = stat.S_IMODE(auth.stat().st_mode)

    mark = server.mark()
    out = await server.request("account/logout")
    logged_out = await server.notification("account/updated", after=mark)
    after = await server.request("account/read", {})

    assert before["account"] is None
    assert result == {"type": "apiKey"}
    assert completed["params"] == {"loginId": None, "success": True, "error": None}
    assert updated["params"] == {"authMode": "apikey", "planType": None}
    assert during["account"] == {"type": "apiKey"}
    assert (stored, mode) == (KEY, 0o600)
    assert out == {}
    assert logged_out["params"] == {"authMode": None, "planType": None}
    assert after["account"] is None
    assert not auth.exists()


async def test_a_key_given_by_login_start_serves_the_next_turn(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("hi"))
    server = await start_server(*OPENAI_AUTH, env=NO_ENV_KEY)
    thread_id = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]

    refused = await _turn(server, thread_id)
    await server.request("account/login/start", {"type": "apiKey", "apiKey": KEY})
    served = await _turn(server, thread_id)

    assert refused["status"] == "failed"
    assert "tether login --with-api-key" in json.dumps(refused["error"])
    assert served["status"] == "completed"
    assert [r.header("authorization") for r in fake_model.requests] == [f"Bearer {KEY}"]


async def test_bedrock_sign_in_gets_a_clear_error_and_stores_nothing(start_server: StartServer) -> None:
    server = await start_server(*OPENAI_AUTH, env=NO_ENV_KEY)

    errors = []
    for params in (
        {"type": "amazonBedrock"},
        {"type": "amazonBedrockAccessKeys"},
        {"type": "apiKey", "apiKey": "  "},
    ):
        try:
            await server.request("account/login/start", params)
        except RpcErrorReply as exc:
            errors.append(exc)
    account = await server.request("account/read", {})

    assert [e.code for e in errors] == [-32600, -32600, -32602]
    assert errors[0].message.startswith("Amazon Bedrock sign-in is not supported by Tether")
    assert '"type": "apiKey"' in errors[0].message
    assert errors[0].data == {"reason": "unsupportedLoginType", "type": "amazonBedrock"}
    assert "`apiKey` must be a non-empty string" in errors[2].message
    assert account["account"] is None
    assert not (server.home / "auth.json").exists()
    assert not [m for m in server.messages if str(m.get("method", "")).startswith("account/")]


async def test_a_running_daemon_sees_a_cli_login_and_logout(start_server: StartServer) -> None:
    server = await start_server(*OPENAI_AUTH, env=NO_ENV_KEY)
    before = await server.request("account/read", {})

    await run_tether(server.home, "login", "--with-api-key", stdin=KEY.encode())
    during = await server.request("account/read", {})
    await run_tether(server.home, "logout")
    after = await server.request("account/read", {})

    assert [r["account"] for r in (before, during, after)] == [None, {"type": "apiKey"}, None]


async def test_login_start_with_an_unusable_keyring_says_so_and_stores_nothing(
    start_server: StartServer, tmp_path: Path
) -> None:
    env = {**NO_ENV_KEY, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    server = await start_server("-c", 'cli_auth_credentials_store="keyring"', *OPENAI_AUTH, env=env)

    with pytest.raises(RpcErrorReply) as refused:
        await server.request("account/login/start", {"type": "apiKey", "apiKey": KEY})
    error = refused.value
    account = await server.request("account/read", {})

    assert error.code == -32603
    assert "cannot store the API key" in error.message
    assert "no usable system keyring" in error.message
    assert account["account"] is None
    assert not (server.home / "auth.json").exists()
