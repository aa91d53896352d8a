"""A model request refused with 401 under a ChatGPT sign-in: the tokens are renewed and it is sent once more.

Codex renews a ChatGPT sign-in's tokens when the model refuses them (for `chatgptAuthTokens` it
asks the app with `account/chatgptAuthTokens/refresh`, reason `unauthorized`, as observed for the
backend reads; for a browser sign-in it spends the refresh token at the issuer) and retries once.
Not observed end to end on Codex 0.169.0: its turns under a ChatGPT sign-in first need the
backend's workspace routing (`wham/accounts/check`), whose backend origin must be HTTPS ("workspace
backend must use an HTTPS origin without credentials"), which a loopback backend cannot be.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import StartApp
from tests.integration.settings_pages import fake_issuer
from tests.integration.settings_pages.fake_issuer import FakeIssuer
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

HI = [{"type": "text", "text": "hi"}]


@pytest.fixture
def issuer() -> Iterator[FakeIssuer]:
    with fake_issuer.serve() as fake:
        yield fake


def _args(model: FakeResponsesServer, issuer: FakeIssuer) -> tuple[str, ...]:
    return (
        "-c",
        'model_provider="openai"',
        "-c",
        f'chatgpt_base_url="{model.base_url}"',
        "-c",
        f'tether.chatgpt_issuer="{issuer.base_url}"',
    )


async def test_app_tokens_are_asked_for_again_and_the_turn_goes_on(
    start_app: StartApp, fake_model: FakeResponsesServer, issuer: FakeIssuer, workdir: Path
) -> None:
    fake_model.add(script.http_error(401), script.text_reply("hello"))
    server = await start_app(*_args(fake_model, issuer), env={"OPENAI_API_KEY": ""})
    stale, fresh = fake_issuer.id_token(plan="plus"), fake_issuer.id_token(plan="pro")
    tokens = {"type": "chatgptAuthTokens", "accessToken": stale, "chatgptAccountId": "acc-1"}
    await server.request("account/login/start", tokens)
    thread_id = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]

    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": HI})
    ask = await server.server_request("account/chatgptAuthTokens/refresh", after=mark)
    await server.respond(ask["id"], {"accessToken": fresh, "chatgptAccountId": "acc-2"})
    done = await server.notification("turn/completed", after=mark)

    assert ask["params"] == {"reason": "unauthorized", "previousAccountId": "acc-1"}
    assert done["params"]["turn"]["status"] == "completed"
    assert [(r.header("authorization"), r.header("chatgpt-account-id")) for r in fake_model.requests] == [
        (f"Bearer {stale}", "acc-1"),
        (f"Bearer {fresh}", "acc-2"),
    ]


async def test_a_browser_sign_in_spends_its_refresh_token_once(
    start_app: StartApp, fake_model: FakeResponsesServer, issuer: FakeIssuer, workdir: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    stored = {"id_token": fake_issuer.id_token(), "access_token": "access-1", "refresh_token": "refresh-1"}
    home.joinpath("auth.json").write_text(
        json.dumps({"auth_mode": "chatgpt", "tokens": {**stored, "account_id": "acc-1"}})
    )
    fake_model.add(script.http_error(401), script.text_reply("hello"), script.http_error(401))
    server = await start_app(*_args(fake_model, issuer), home=home, env={"OPENAI_API_KEY": ""})
    thread_id = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]

    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": HI})
    renewed = await server.notification("turn/completed", after=mark)
    after_renewal = json.loads(home.joinpath("auth.json").read_text())["tokens"]
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": HI})  # refresh-2 is refused
    refused = await server.notification("turn/completed", after=mark)

    assert renewed["params"]["turn"]["status"] == "completed"
    assert (after_renewal["access_token"], after_renewal["refresh_token"]) == ("access-2", "refresh-2")
    assert [r.header("authorization") for r in fake_model.requests] == [
        "Bearer access-1",
        "Bearer access-2",
        "Bearer access-2",
    ]
    assert [r["refresh_token"] for r in issuer.refresh_requests] == ["refresh-1", "refresh-2"]
    assert refused["params"]["turn"]["status"] == "failed"
    assert refused["params"]["turn"]["error"]["codexErrorInfo"] == "unauthorized"
    assert json.loads(home.joinpath("auth.json").read_text())["tokens"] == after_renewal
