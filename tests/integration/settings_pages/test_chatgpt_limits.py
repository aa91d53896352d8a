"""`account/rateLimits/read` with a ChatGPT account, and the app's token refresh, against a fake backend.

Observed on Codex 0.169.0 (`chatgpt_base_url` pointing at a loopback server): the read is
`GET {chatgpt_base_url}/wham/usage` with `Authorization: Bearer <access token>` and
`ChatGPT-Account-Id`; a refusal is -32603 "failed to fetch codex rate limits: GET <url> failed:
401 Unauthorized; content-type=application/json; body={"detail":"no"}".
A ChatGPT sign-in authenticates the built-in `openai` provider's turns: Codex sends them to
`{chatgpt_base_url}/codex/responses` with the access token and the workspace id.
Codex asks the app for fresh `chatgptAuthTokens` (`account/chatgptAuthTokens/refresh`, reason
`unauthorized`) when a backend request gets 401; Tether does so for this read and retries once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import StartApp
from tests.integration.settings_pages import fake_issuer
from tests.integration.settings_pages.fake_issuer import FakeIssuer
from tests.support.rpcclient import RpcErrorReply
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

USAGE = {
    "plan_type": "pro",
    "rate_limit": {
        "allowed": True,
        "limit_reached": False,
        "primary_window": {"used_percent": 42, "limit_window_seconds": 18000, "reset_at": 1796160000},
        "secondary_window": {"used_percent": 7, "limit_window_seconds": 604800, "reset_at": 1796700000},
    },
    "credits": {"has_credits": True, "unlimited": False, "balance": "12.5"},
}
SNAPSHOT = {
    "limitId": "codex",
    "limitName": None,
    "normalModelSlug": None,
    "primary": {"usedPercent": 42, "windowDurationMins": 300, "resetsAt": 1796160000},
    "secondary": {"usedPercent": 7, "windowDurationMins": 10080, "resetsAt": 1796700000},
    "credits": {"hasCredits": True, "unlimited": False, "balance": "12.5"},
    "individualLimit": None,
    "spendControlReached": None,
    "planType": "pro",
    "rateLimitReachedType": None,
}


@pytest.fixture
def backend() -> Iterator[FakeIssuer]:
    with fake_issuer.serve() as fake:
        fake.usage = USAGE
        yield fake


def _args(fake: FakeIssuer) -> tuple[str, ...]:
    return ("-c", f'chatgpt_base_url="{fake.base_url}/backend-api"')


def _tokens(access: str) -> dict[str, str]:
    return {"type": "chatgptAuthTokens", "accessToken": access, "chatgptAccountId": "acc-1"}


async def test_the_app_is_asked_for_fresh_tokens_when_the_backend_refuses_them(
    start_app: StartApp, backend: FakeIssuer
) -> None:
    stale, fresh = fake_issuer.id_token(plan="plus"), fake_issuer.id_token(plan="pro")
    backend.accepted_tokens = {fresh}
    server = await start_app(*_args(backend))
    await server.request("account/login/start", _tokens(stale))

    mark = server.mark()
    read = asyncio.ensure_future(server.request("account/rateLimits/read"))
    ask = await server.server_request("account/chatgptAuthTokens/refresh", after=mark)
    await server.respond(
        ask["id"], {"accessToken": fresh, "chatgptAccountId": "acc-2", "chatgptPlanType": "pro"}
    )
    limits = await read
    account = await server.request("account/read", {})

    assert ask["params"] == {"reason": "unauthorized", "previousAccountId": "acc-1"}
    assert limits == {"rateLimits": SNAPSHOT}
    assert backend.usage_auth == [(f"Bearer {stale}", "acc-1"), (f"Bearer {fresh}", "acc-2")]
    assert account["account"]["planType"] == "pro"


async def test_a_refused_read_is_codexs_error(start_app: StartApp, backend: FakeIssuer) -> None:
    server = await start_app(*_args(backend))
    await server.request("account/login/start", _tokens(fake_issuer.id_token()))

    mark = server.mark()
    read = asyncio.ensure_future(server.request("account/rateLimits/read"))
    ask = await server.server_request("account/chatgptAuthTokens/refresh", after=mark)
    await server.respond(ask["id"], {"accessToken": "still-wrong", "chatgptAccountId": "acc-1"})
    with pytest.raises(RpcErrorReply) as refused:
        await read

    url = f"{backend.base_url}/backend-api/wham/usage"
    assert (refused.value.code, refused.value.message) == (
        -32603,
        f"failed to fetch codex rate limits: GET {url} failed: 401 Unauthorized; "
        'content-type=application/json; body={"detail": "token expired"}',
    )
    assert len(backend.usage_auth) == 2


async def test_a_chatgpt_sign_in_serves_the_openai_providers_turns(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("hi"))
    server = await start_app(
        "-c",
        'model_provider="openai"',
        "-c",
        f'chatgpt_base_url="{fake_model.base_url}"',
        env={"OPENAI_API_KEY": ""},
    )
    token = fake_issuer.id_token()
    await server.request("account/login/start", _tokens(token))
    thread_id = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]

    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]})
    done = await server.notification("turn/completed", after=mark)

    assert done["params"]["turn"]["status"] == "completed"
    [request] = fake_model.requests
    assert request.path.endswith("/codex/responses")
    assert (request.header("authorization"), request.header("chatgpt-account-id")) == (
        f"Bearer {token}",
        "acc-1",
    )
