"""account/gatewayOAuth/*, account/rateLimitResetCredit/consume, account/sendAddCreditsNudgeEmail,
windowsSandbox/* and mcpServer/oauth/login, as Codex 0.169.0 answers them on Linux.

Observed on the real binary (no auth, then an API key through account/login/start):
- gatewayOAuth/read (no params, or a configured provider): `{providerId, providerName (the
  provider's name), required: false, supportsDeviceAuth: false, status: null, error: null}`; an
  unknown provider: -32600 "This chat uses model provider “nope”, which is no longer configured.
  Restore this provider's configuration to continue." (typographic quotes) with data `{type:
  "modelProviderNotConfigured", modelProvider}` (login too); login otherwise: -32600 "The selected
  provider does not use gateway OAuth"; cancel: `{}`. The same in both auth states.
- rateLimitResetCredit/consume: -32600 "codex account authentication required for rate limit
  reset credits" ("chatgpt …" with a key); an empty idempotencyKey first: "idempotencyKey must
  not be empty". sendAddCreditsNudgeEmail: "codex account|chatgpt authentication required to
  notify workspace owner".
- windowsSandbox/readiness: `{"status": "notConfigured"}`. setupStart: `{"started": true}`, then
  windowsSandbox/setupCompleted `{mode, success: false, error: "elevated Windows sandbox setup is
  only supported on Windows"}` ("legacy …" for unelevated); a relative cwd: -32600 "Invalid
  request: AbsolutePathBuf deserialized without a base path".
- mcpServer/oauth/login: an unknown server: -32600 "No MCP server named 'nope' found."; a stdio
  server: -32600 "OAuth login is only supported for streamable HTTP servers.".
"""

from __future__ import annotations

import pytest

from tests.conftest import StartApp
from tests.support.inprocess import InProcessServer
from tests.support.rpcclient import RpcErrorReply

KEY = "sk-extras-0123456789abcdef"
OPENAI_AUTH = ("-c", 'model_providers.mock.env_key="OPENAI_API_KEY"')


async def _error(
    server: InProcessServer, method: str, params: dict[str, object] | None = None
) -> tuple[object, str]:
    with pytest.raises(RpcErrorReply) as caught:
        await server.request(method, params)
    return caught.value.code, caught.value.message


async def _account_refusals(server: InProcessServer) -> list[tuple[object, str]]:
    return [
        await _error(server, "account/rateLimitResetCredit/consume", {"idempotencyKey": "k1"}),
        await _error(server, "account/sendAddCreditsNudgeEmail", {"creditType": "credits"}),
        await _error(server, "account/rateLimitResetCredit/consume", {"idempotencyKey": ""}),
    ]


async def test_reset_credits_and_nudges_need_a_chatgpt_account(start_app: StartApp) -> None:
    server = await start_app(*OPENAI_AUTH, env={"OPENAI_API_KEY": ""})
    signed_out = await _account_refusals(server)
    await server.request("account/login/start", {"type": "apiKey", "apiKey": KEY})
    with_key = await _account_refusals(server)

    empty_key = (-32600, "idempotencyKey must not be empty")
    assert signed_out == [
        (-32600, "codex account authentication required for rate limit reset credits"),
        (-32600, "codex account authentication required to notify workspace owner"),
        empty_key,
    ]
    assert with_key == [
        (-32600, "chatgpt authentication required for rate limit reset credits"),
        (-32600, "chatgpt authentication required to notify workspace owner"),
        empty_key,
    ]


async def test_no_provider_signs_in_through_a_gateway(start_app: StartApp) -> None:
    server = await start_app()
    current = await server.request("account/gatewayOAuth/read")
    openai = await server.request("account/gatewayOAuth/read", {"modelProvider": "openai"})
    login = await _error(server, "account/gatewayOAuth/login", {"deviceAuth": True})
    cancel = await server.request("account/gatewayOAuth/cancel")
    with pytest.raises(RpcErrorReply) as unknown:
        await server.request("account/gatewayOAuth/read", {"modelProvider": "nope"})
    with pytest.raises(RpcErrorReply) as unknown_login:
        await server.request("account/gatewayOAuth/login", {"modelProvider": "nope"})

    idle = {"required": False, "supportsDeviceAuth": False, "status": None, "error": None}
    assert current == {"providerId": "mock", "providerName": "mock", **idle}
    assert openai == {"providerId": "openai", "providerName": "OpenAI", **idle}
    assert login == (-32600, "The selected provider does not use gateway OAuth")
    assert cancel == {}
    for caught in (unknown, unknown_login):
        assert caught.value.code == -32600
        assert caught.value.message == (
            "This chat uses model provider \u201cnope\u201d, which is no longer configured. "
            "Restore this provider\u2019s configuration to continue."
        )
        assert caught.value.data == {"type": "modelProviderNotConfigured", "modelProvider": "nope"}


async def test_windows_sandbox_setup_starts_then_fails_on_linux(start_app: StartApp) -> None:
    server = await start_app()
    readiness = await server.request("windowsSandbox/readiness")
    outcomes = []
    for mode in ("elevated", "unelevated"):
        mark = server.mark()
        started = await server.request("windowsSandbox/setupStart", {"mode": mode, "cwd": str(server.home)})
        done = await server.notification("windowsSandbox/setupCompleted", after=mark)
        outcomes.append((started, done["params"]))
    relative = await _error(server, "windowsSandbox/setupStart", {"mode": "elevated", "cwd": "rel"})

    assert readiness == {"status": "notConfigured"}
    assert outcomes == [
        (
            {"started": True},
            {
                "mode": "elevated",
                "success": False,
                "error": "elevated Windows sandbox setup is only supported on Windows",
            },
        ),
        (
            {"started": True},
            {
                "mode": "unelevated",
                "success": False,
                "error": "legacy Windows sandbox setup is only supported on Windows",
            },
        ),
    ]
    assert relative == (-32600, "Invalid request: AbsolutePathBuf deserialized without a base path")


async def test_mcp_oauth_login_names_what_cannot_sign_in(start_app: StartApp) -> None:
    server = await start_app("-c", 'mcp_servers.local.command="/bin/true"')
    unknown = await _error(server, "mcpServer/oauth/login", {"name": "nope"})
    stdio = await _error(server, "mcpServer/oauth/login", {"name": "local"})

    assert unknown == (-32600, "No MCP server named 'nope' found.")
    assert stdio == (-32600, "OAuth login is only supported for streamable HTTP servers.")
