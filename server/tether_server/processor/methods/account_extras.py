"""`account/gatewayOAuth/*`, `account/rateLimitResetCredit/consume`, `account/sendAddCreditsNudgeEmail`,
`windowsSandbox/*`: answered as Codex 0.169.0 answers them where it has
nothing to do.

No provider Tether knows signs in through a gateway (Codex's gateway OAuth is configured by an
administrator for its own providers); reset credits and owner nudges belong to a ChatGPT account,
which Tether never has; the Windows sandbox is set up only on Windows, and Codex on Linux says so
in `windowsSandbox/setupCompleted` after answering `{"started": true}`.
"""

from __future__ import annotations

from tether_protocol import server_methods as sm
from tether_protocol.common import EmptyParams
from tether_protocol.v2 import account_extras as ax
from tether_server.errors import InvalidRequest
from tether_server.processor.methods.account import has_key
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext
from tether_server.rpc.outgoing import send_notification

NOT_GATEWAY = "The selected provider does not use gateway OAuth"
NOT_CONFIGURED = (
    "This chat uses model provider \u201c{id}\u201d, which is no longer configured. "
    "Restore this provider\u2019s configuration to continue."
)
WINDOWS_ONLY = "{kind} Windows sandbox setup is only supported on Windows"


def _provider(state: ServerState, wanted: str | None) -> tuple[str, str]:
    cfg = state.config.config
    provider_id = cfg.model_provider if wanted is None else wanted
    info = cfg.model_providers.get(provider_id)
    if info is None:
        raise InvalidRequest(
            NOT_CONFIGURED.format(id=provider_id),
            data={"type": "modelProviderNotConfigured", "modelProvider": provider_id},
        )
    return provider_id, info.display_name(provider_id)


async def gateway_oauth_read(
    state: ServerState, ctx: RequestContext, params: ax.GatewayOAuthReadParams
) -> ax.GatewayOAuthReadResponse:
    """The provider, and that it needs no gateway sign-in."""
    provider_id, name = _provider(state, params.model_provider)
    return ax.GatewayOAuthReadResponse(provider_id=provider_id, provider_name=name, required=False)


async def gateway_oauth_login(
    state: ServerState, ctx: RequestContext, params: ax.GatewayOAuthLoginParams
) -> ax.GatewayOAuthLoginResponse:
    _provider(state, params.model_provider)
    raise InvalidRequest(NOT_GATEWAY)


async def gateway_oauth_cancel(
    state: ServerState, ctx: RequestContext, params: EmptyParams
) -> ax.GatewayOAuthCancelResponse:
    """Nothing is ever pending: `{}`, as Codex answers with no sign-in under way."""
    return ax.GatewayOAuthCancelResponse()


def _account_kind(state: ServerState) -> str:
    # Codex names what is missing: any account at all, or (with an API key) a ChatGPT one.
    return "chatgpt" if has_key(state) else "codex account"


async def reset_credit_consume(
    state: ServerState, ctx: RequestContext, params: ax.ConsumeAccountRateLimitResetCreditParams
) -> ax.ConsumeAccountRateLimitResetCreditResponse:
    if not params.idempotency_key:
        raise InvalidRequest("idempotencyKey must not be empty")
    raise InvalidRequest(f"{_account_kind(state)} authentication required for rate limit reset credits")


async def add_credits_nudge(
    state: ServerState, ctx: RequestContext, params: ax.SendAddCreditsNudgeEmailParams
) -> ax.SendAddCreditsNudgeEmailResponse:
    raise InvalidRequest(f"{_account_kind(state)} authentication required to notify workspace owner")


async def windows_sandbox_readiness(
    state: ServerState, ctx: RequestContext, params: EmptyParams
) -> ax.WindowsSandboxReadinessResponse:
    return ax.WindowsSandboxReadinessResponse(status="notConfigured")


async def windows_sandbox_setup_start(
    state: ServerState, ctx: RequestContext, params: ax.WindowsSandboxSetupStartParams
) -> ax.WindowsSandboxSetupStartResponse:
    """Started, then failed: the outcome goes to the asking connection alone, after the answer."""
    if params.cwd is not None and not params.cwd.startswith("/"):
        raise InvalidRequest("Invalid request: AbsolutePathBuf deserialized without a base path")
    kind = "elevated" if params.mode == "elevated" else "legacy"
    done = ax.WindowsSandboxSetupCompletedNotification(
        mode=params.mode, success=False, error=WINDOWS_ONLY.format(kind=kind)
    )
    conn = ctx.connection
    ctx.after_response(lambda: send_notification([conn], sm.WINDOWS_SANDBOX_SETUP_COMPLETED, done))
    return ax.WindowsSandboxSetupStartResponse(started=True)
