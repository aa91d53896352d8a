"""ChatGPT sign-in (`account/login/start` `chatgpt` and `chatgptAuthTokens`, `account/login/cancel`),
against a fake OAuth issuer on loopback; the browser is an HTTP request to the callback.

Observed on Codex 0.169.0:
- `{"type": "chatgpt"}` answers `{type: "chatgpt", loginId: <uuid>, authUrl}` where authUrl is
  `https://auth.openai.com/oauth/authorize?response_type=code&client_id=app_EMoamEEZ73f0CkXaXp7hrann
  &redirect_uri=http%3A%2F%2F127.0.0.1%3A1455%2Fauth%2Fcallback&code_challenge=…&code_challenge_method=S256
  &state=…&scope=openid+profile+email+offline_access+api.connectors.read+api.connectors.invoke
  &id_token_add_organizations=true&codex_cli_simplified_flow=true&originator=<client name>`
  (the issuer is not configurable there: `experimental_issuer` in config.toml is "ignored").
- The callback with a wrong state: HTTP 400 "State mismatch", the sign-in keeps waiting. Without a
  code: an error page, then `account/login/completed` `{loginId, success: false, error: "Login
  server error: Missing authorization code. Sign-in could not be completed."}` and the listener
  closes. A failed exchange: "Login server error: Token exchange failed: error sending request for
  url (https://auth.openai.com/oauth/token)".
- `account/login/cancel` of the pending id: `{status: "canceled"}`, then `login/completed` with
  "Login server error: Login was not completed"; again (or an ended sign-in's id): `notFound`.
- `chatgptAuthTokens`: `{type: "chatgptAuthTokens"}` then `login/completed` with `loginId: null`;
  nothing written to auth.json; an access token that is not a JWT: -32603 "failed to set external
  auth: invalid ID token format".
"""

from __future__ import annotations

import json
import socket
import stat
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.conftest import StartApp
from tests.integration.settings_pages import fake_issuer
from tests.integration.settings_pages.fake_issuer import FakeIssuer
from tests.support.inprocess import InProcessServer
from tests.support.rpcclient import RpcErrorReply

NOT_COMPLETED = "Login server error: Login was not completed"


@pytest.fixture
def issuer() -> Iterator[FakeIssuer]:
    with fake_issuer.serve() as fake:
        yield fake


def _args(issuer: FakeIssuer) -> tuple[str, ...]:
    return (
        "-c",
        f'tether.chatgpt_issuer="{issuer.base_url}"',
        "-c",
        "tether.chatgpt_login_port=0",
        "-c",
        f'chatgpt_base_url="{issuer.base_url}/backend-api"',
    )


async def _browser(url: str) -> httpx.Response:
    async with httpx.AsyncClient(timeout=10) as client:
        return await client.get(url)


async def _start(server: InProcessServer, issuer: FakeIssuer) -> tuple[dict[str, Any], dict[str, str]]:
    started = await server.request("account/login/start", {"type": "chatgpt"})
    return started, issuer.learn(started["authUrl"])


async def test_browser_sign_in_stores_the_tokens_and_reads_the_account(
    start_app: StartApp, issuer: FakeIssuer
) -> None:
    server = await start_app(*_args(issuer))
    mark = server.mark()
    started, query = await _start(server, issuer)
    callback = query["redirect_uri"]
    wrong = await _browser(f"{callback}?code={issuer.code}&state=forged")
    page = await _browser(f"{callback}?code={issuer.code}&state={query['state']}")
    completed = await server.notification("account/login/completed", after=mark)
    updated = await server.notification("account/updated", after=mark)
    account = await server.request("account/read", {})
    auth = server.home / "auth.json"
    stored, mode = json.loads(auth.read_text()), stat.S_IMODE(auth.stat().st_mode)
    issuer.accepted_tokens, issuer.usage = {"access-1"}, {"plan_type": "pro"}
    limits = await server.request("account/rateLimits/read")
    mark = server.mark()
    await server.request("account/logout")
    signed_out = await server.notification("account/updated", after=mark)
    after = await server.request("account/read", {})

    assert started["type"] == "chatgpt" and set(started) == {"type", "loginId", "authUrl"}
    assert started["authUrl"].startswith(f"{issuer.base_url}/oauth/authorize?response_type=code&client_id=")
    assert urlsplit(callback).hostname == "127.0.0.1" and urlsplit(callback).path == "/auth/callback"
    assert {
        k: query[k] for k in ("client_id", "code_challenge_method", "scope", "codex_cli_simplified_flow")
    } == {
        "client_id": fake_issuer.CLIENT_ID,
        "code_challenge_method": "S256",
        "scope": "openid profile email offline_access api.connectors.read api.connectors.invoke",
        "codex_cli_simplified_flow": "true",
    }
    assert "scope=openid+profile+email+offline_access+" in started["authUrl"]
    assert (wrong.status_code, wrong.text) == (400, "State mismatch")
    assert page.status_code == 200
    assert len(issuer.token_requests) == 1  # the verifier matched the challenge, or no tokens
    assert completed["params"] == {"loginId": started["loginId"], "success": True, "error": None}
    assert updated["params"] == {"authMode": "chatgpt", "planType": "pro"}
    assert account["account"] == {
        "type": "chatgpt",
        "email": "ada@example.com",
        "planType": "pro",
        "workspaceName": None,
    }
    assert account["userId"] == "user-1"
    assert mode == 0o600
    assert stored["auth_mode"] == "chatgpt" and stored["OPENAI_API_KEY"] is None
    tokens = stored["tokens"]
    assert set(tokens) == {"id_token", "access_token", "refresh_token", "account_id"}
    assert (tokens["access_token"], tokens["refresh_token"], tokens["account_id"]) == (
        "access-1",
        "refresh-1",
        "acc-1",
    )
    assert isinstance(stored["last_refresh"], str)
    assert issuer.usage_auth == [("Bearer access-1", "acc-1")]
    assert limits["rateLimits"]["planType"] == "pro" and limits["rateLimits"]["primary"] is None
    assert signed_out["params"] == {"authMode": None, "planType": None}
    assert after["account"] is None and not auth.exists()


async def test_a_callback_without_code_or_with_a_refused_code_signs_nothing_in(
    start_app: StartApp, issuer: FakeIssuer
) -> None:
    server = await start_app(*_args(issuer))
    mark = server.mark()
    first, query = await _start(server, issuer)
    await _browser(f"{query['redirect_uri']}?state={query['state']}")
    missing = await server.notification("account/login/completed", after=mark)

    mark = server.mark()
    second, query = await _start(server, issuer)
    await _browser(f"{query['redirect_uri']}?code=not-the-code&state={query['state']}")
    refused = await server.notification("account/login/completed", after=mark)
    account = await server.request("account/read", {})

    assert missing["params"] == {
        "loginId": first["loginId"],
        "success": False,
        "error": "Login server error: Missing authorization code. Sign-in could not be completed.",
    }
    assert refused["params"]["loginId"] == second["loginId"] and refused["params"]["success"] is False
    assert refused["params"]["error"].startswith("Login server error: Token exchange failed")
    assert account["account"] is None
    assert not (server.home / "auth.json").exists()


async def test_cancel_ends_the_pending_sign_in_and_closes_its_listener(
    start_app: StartApp, issuer: FakeIssuer
) -> None:
    server = await start_app(*_args(issuer))
    started, query = await _start(server, issuer)
    mark = server.mark()
    canceled = await server.request("account/login/cancel", {"loginId": started["loginId"]})
    completed = await server.notification("account/login/completed", after=mark)
    again = await server.request("account/login/cancel", {"loginId": started["loginId"]})
    with pytest.raises(httpx.ConnectError):
        await _browser(f"{query['redirect_uri']}?code={issuer.code}&state={query['state']}")
    with pytest.raises(RpcErrorReply) as bad:
        await server.request("account/login/cancel", {"loginId": "nope"})

    assert canceled == {"status": "canceled"}
    assert completed["params"] == {"loginId": started["loginId"], "success": False, "error": NOT_COMPLETED}
    assert again == {"status": "notFound"}
    assert (bad.value.code, bad.value.message) == (-32600, "invalid login id: nope")
    assert issuer.token_requests == []


async def test_a_new_sign_in_replaces_the_pending_one(start_app: StartApp, issuer: FakeIssuer) -> None:
    server = await start_app(*_args(issuer))
    first, _ = await _start(server, issuer)
    mark = server.mark()
    second, _ = await _start(server, issuer)
    ended = await server.notification("account/login/completed", after=mark)
    old = await server.request("account/login/cancel", {"loginId": first["loginId"]})

    assert second["loginId"] != first["loginId"]
    assert ended["params"] == {"loginId": first["loginId"], "success": False, "error": NOT_COMPLETED}
    assert old == {"status": "notFound"}


async def test_app_supplied_tokens_stay_in_memory(start_app: StartApp, issuer: FakeIssuer) -> None:
    server = await start_app(*_args(issuer))
    with pytest.raises(RpcErrorReply) as garbage:
        await server.request(
            "account/login/start",
            {"type": "chatgptAuthTokens", "accessToken": "garbage", "chatgptAccountId": "acc-1"},
        )
    mark = server.mark()
    result = await server.request(
        "account/login/start",
        {
            "type": "chatgptAuthTokens",
            "accessToken": fake_issuer.id_token(plan="plus"),
            "chatgptAccountId": "acc-1",
        },
    )
    completed = await server.notification("account/login/completed", after=mark)
    updated = await server.notification("account/updated", after=mark)
    account = await server.request("account/read", {})
    mark = server.mark()
    await server.request("account/logout")
    out = await server.notification("account/updated", after=mark)
    after = await server.request("account/read", {})

    assert (garbage.value.code, garbage.value.message) == (
        -32603,
        "failed to set external auth: invalid ID token format",
    )
    assert result == {"type": "chatgptAuthTokens"}
    assert completed["params"] == {"loginId": None, "success": True, "error": None}
    assert updated["params"] == {"authMode": "chatgptAuthTokens", "planType": "plus"}
    assert account["account"] == {
        "type": "chatgpt",
        "email": "ada@example.com",
        "planType": "plus",
        "workspaceName": None,
    }
    assert not (server.home / "auth.json").exists()
    assert out["params"] == {"authMode": None, "planType": None}
    assert after["account"] is None


async def test_device_code_sign_in_completes_once_the_user_enters_the_code(
    start_app: StartApp, issuer: FakeIssuer
) -> None:
    server = await start_app(*_args(issuer))
    mark = server.mark()
    started = await server.request("account/login/start", {"type": "chatgptDeviceCode"})
    issuer.device_approved = True  # what the user does at verificationUrl
    completed = await server.notification("account/login/completed", after=mark)
    updated = await server.notification("account/updated", after=mark)
    account = await server.request("account/read", {})

    assert set(started) == {"type", "loginId", "userCode", "verificationUrl"}
    assert (started["type"], started["userCode"]) == ("chatgptDeviceCode", "ABCD-EFGH")
    assert started["verificationUrl"] == f"{issuer.base_url}/codex/device"
    assert completed["params"] == {"loginId": started["loginId"], "success": True, "error": None}
    assert updated["params"] == {"authMode": "chatgpt", "planType": "pro"}
    assert account["account"]["email"] == "ada@example.com"
    assert len(issuer.token_requests) == 1
    assert stat.S_IMODE((server.home / "auth.json").stat().st_mode) == 0o600


async def test_device_code_cancel_and_an_unreachable_issuer(start_app: StartApp, issuer: FakeIssuer) -> None:
    server = await start_app(*_args(issuer))
    started = await server.request("account/login/start", {"type": "chatgptDeviceCode"})
    mark = server.mark()
    canceled = await server.request("account/login/cancel", {"loginId": started["loginId"]})
    ended = await server.notification("account/login/completed", after=mark)

    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    away = await start_app("-c", f'tether.chatgpt_issuer="{closed}"', home=server.home.parent / "away")
    with pytest.raises(RpcErrorReply) as unreachable:
        await away.request("account/login/start", {"type": "chatgptDeviceCode"})

    assert canceled == {"status": "canceled"}
    assert ended["params"] == {"loginId": started["loginId"], "success": False, "error": NOT_COMPLETED}
    assert (unreachable.value.code, unreachable.value.message) == (
        -32603,
        "failed to request device code: error sending request for url "
        f"({closed}/api/accounts/deviceauth/usercode)",
    )
    assert issuer.token_requests == []


async def test_a_busy_callback_port_is_an_error_and_no_sign_in_is_left_pending(
    start_app: StartApp, issuer: FakeIssuer
) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        server = await start_app(
            "-c", f'tether.chatgpt_issuer="{issuer.base_url}"', "-c", f"tether.chatgpt_login_port={port}"
        )
        mark = server.mark()
        with pytest.raises(RpcErrorReply) as refused:
            await server.request("account/login/start", {"type": "chatgpt"})
        account = await server.request("account/read", {})

    assert refused.value.code == -32603
    assert refused.value.message.startswith("failed to start login server: ")
    assert account["account"] is None
    assert [m for m in server.since(mark) if m.get("method", "").startswith("account/")] == []


async def test_a_browser_sign_in_is_renewed_with_its_refresh_token(
    start_app: StartApp, issuer: FakeIssuer
) -> None:
    server = await start_app(*_args(issuer))
    mark = server.mark()
    _, query = await _start(server, issuer)
    await _browser(f"{query['redirect_uri']}?code={issuer.code}&state={query['state']}")
    await server.notification("account/login/completed", after=mark)
    issuer.accepted_tokens, issuer.usage = {"access-2"}, {"plan_type": "pro"}

    limits = await server.request("account/rateLimits/read")  # access-1 is refused: renewed, read again
    stored = json.loads(server.home.joinpath("auth.json").read_text())
    with pytest.raises(RpcErrorReply) as refused:  # refresh-1 is spent: the issuer refuses refresh-2
        await server.request("account/read", {"refreshToken": True})
    after = json.loads(server.home.joinpath("auth.json").read_text())
    account = await server.request("account/read", {})

    assert limits["rateLimits"]["planType"] == "pro"
    assert [a for a, _ in issuer.usage_auth] == ["Bearer access-1", "Bearer access-2"]
    assert issuer.refresh_requests[0] == {
        "client_id": fake_issuer.CLIENT_ID,
        "grant_type": "refresh_token",
        "refresh_token": "refresh-1",
        "scope": "openid profile email",
    }
    assert (stored["tokens"]["access_token"], stored["tokens"]["refresh_token"]) == ("access-2", "refresh-2")
    assert stored["tokens"]["id_token"]  # kept: the issuer did not send a new one
    assert (refused.value.code, refused.value.message) == (
        -32603,
        "failed to refresh ChatGPT tokens: the token endpoint answered 401; sign in again",
    )
    assert after == stored
    assert account["account"]["email"] == "ada@example.com"
