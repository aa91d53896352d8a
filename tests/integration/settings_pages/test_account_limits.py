"""account/rateLimits/read, account/usage/read, account/workspaceMessages/read,
account/securitySetup/read and account/login/cancel, as Codex 0.169.0 answers them.

Observed on the real binary:
- no account: -32600 "codex account authentication required to read rate limits" (and "… token
  usage", "… workspace messages"); with an API key (`codex login --with-api-key`): -32600 "chatgpt
  authentication required to read rate limits" (and the same two others). With or without params.
- securitySetup/read: `{"notice": null}` in both states.
- login/cancel: a login id that is not a UUID: -32600 "invalid login id: x"; a UUID no sign-in has:
  `{"status": "notFound"}`.
"""

from __future__ import annotations

import pytest

from tests.conftest import StartApp
from tests.support.inprocess import InProcessServer
from tests.support.rpcclient import RpcErrorReply

KEY = "sk-limits-0123456789abcdef"
OPENAI_AUTH = ("-c", 'model_providers.mock.env_key="OPENAI_API_KEY"')
READS = {
    "account/rateLimits/read": "rate limits",
    "account/usage/read": "token usage",
    "account/workspaceMessages/read": "workspace messages",
}


async def _refusals(server: InProcessServer) -> dict[str, tuple[object, str]]:
    seen = {}
    for method in READS:
        with pytest.raises(RpcErrorReply) as caught:
            await server.request(method)
        seen[method] = (caught.value.code, caught.value.message)
    return seen


async def test_limits_usage_and_messages_need_a_chatgpt_account(start_app: StartApp) -> None:
    server = await start_app(*OPENAI_AUTH, env={"OPENAI_API_KEY": ""})
    signed_out = await _refusals(server)
    with pytest.raises(RpcErrorReply) as with_params:
        await server.request("account/rateLimits/read", {"excludeResetCreditDetails": True})
    notice_out = await server.request("account/securitySetup/read")

    await server.request("account/login/start", {"type": "apiKey", "apiKey": KEY})
    with_key = await _refusals(server)
    notice_in = await server.request("account/securitySetup/read")

    assert signed_out == {
        m: (-32600, f"codex account authentication required to read {w}") for m, w in READS.items()
    }
    assert with_params.value.message == "codex account authentication required to read rate limits"
    assert with_key == {m: (-32600, f"chatgpt authentication required to read {w}") for m, w in READS.items()}
    assert notice_out == notice_in == {"notice": None}


async def test_login_cancel_knows_no_pending_sign_in(start_app: StartApp) -> None:
    server = await start_app()
    answer = await server.request("account/login/cancel", {"loginId": "00000000-0000-0000-0000-000000000000"})
    with pytest.raises(RpcErrorReply) as caught:
        await server.request("account/login/cancel", {"loginId": "x"})
    assert answer == {"status": "notFound"}
    assert (caught.value.code, caught.value.message) == (-32600, "invalid login id: x")
