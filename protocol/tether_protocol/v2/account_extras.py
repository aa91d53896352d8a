"""Provider gateway sign-in, reset credits, credit nudges, the Windows sandbox and MCP OAuth login:
the account-page methods that need a ChatGPT account, a gateway or Windows to do anything."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from tether_protocol.common import WireModel

GatewayOAuthStatus = Literal["notReady", "started", "succeeded", "failed"]


class GatewayOAuthReadParams(WireModel):
    """`account/gatewayOAuth/read` params (optional): the provider, else the current one."""

    model_provider: str | None = None


class GatewayOAuthReadResponse(WireModel):
    """Whether the provider signs in through a gateway, and how far; never credentials."""

    provider_id: str
    provider_name: str
    required: bool
    supports_device_auth: bool = False
    status: GatewayOAuthStatus | None = None
    error: str | None = None


class GatewayOAuthLoginParams(WireModel):
    """`account/gatewayOAuth/login` params (optional)."""

    device_auth: bool = False
    model_provider: str | None = None


class GatewayOAuthPrompt(WireModel):
    """A device sign-in to finish in a browser."""

    login_id: str
    user_code: str
    verification_url: str


class GatewayOAuthLoginResponse(WireModel):
    """`account/gatewayOAuth/login` result (no provider Tether knows answers one)."""

    prompt: GatewayOAuthPrompt | None = None


class GatewayOAuthCancelResponse(WireModel):
    """`account/gatewayOAuth/cancel` result: `{}`."""


class ConsumeAccountRateLimitResetCreditParams(WireModel):
    """`account/rateLimitResetCredit/consume` params."""

    idempotency_key: str
    credit_id: str | None = None


class ConsumeAccountRateLimitResetCreditResponse(WireModel):
    """`account/rateLimitResetCredit/consume` result (only a ChatGPT account gets one)."""

    outcome: Literal["reset", "nothingToReset", "noCredit", "alreadyRedeemed"]


class SendAddCreditsNudgeEmailParams(WireModel):
    """`account/sendAddCreditsNudgeEmail` params."""

    credit_type: Literal["credits", "usage_limit"]


class SendAddCreditsNudgeEmailResponse(WireModel):
    """`account/sendAddCreditsNudgeEmail` result (only a ChatGPT account gets one)."""

    status: Literal["sent", "cooldown_active"]


WindowsSandboxSetupMode = Literal["elevated", "unelevated"]


class WindowsSandboxSetupStartParams(WireModel):
    """`windowsSandbox/setupStart` params."""

    mode: WindowsSandboxSetupMode
    cwd: str | None = None


class WindowsSandboxSetupStartResponse(WireModel):
    """`windowsSandbox/setupStart` result; the outcome follows as `windowsSandbox/setupCompleted`."""

    started: bool


class WindowsSandboxReadinessResponse(WireModel):
    """`windowsSandbox/readiness` result."""

    status: Literal["ready", "notConfigured", "updateRequired"]


class WindowsSandboxSetupCompletedNotification(WireModel):
    """The end of a Windows sandbox setup (on Linux: always a failure)."""

    mode: WindowsSandboxSetupMode
    success: bool
    error: str | None = None


class McpServerOauthLoginParams(WireModel):
    """`mcpServer/oauth/login` params."""

    name: str
    client_registration: Literal["auto", "cimd", "dcr"] | None = None
    scopes: list[str] | None = None
    thread_id: str | None = None
    timeout_secs: int | None = Field(default=None, ge=-(2**63), le=2**63 - 1)


class McpServerOauthLoginResponse(WireModel):
    """`mcpServer/oauth/login` result: where the user authorizes."""

    authorization_url: str
    login_id: str | None = None


class McpServerOauthLoginCompletedNotification(WireModel):
    """`mcpServer/oauthLogin/completed`: a sign-in started by `mcpServer/oauth/login` ended."""

    # Codex sends no `error` key at all on success (threadId stays, null); the exported schema
    # reads this to leave `error` out of `required`.
    omitted_when_null: ClassVar[frozenset[str]] = frozenset({"error"})

    name: str
    success: bool
    thread_id: str | None = None
    login_id: str | None = None
    error: str | None = None

    @model_serializer(mode="wrap")
    def _error_only_on_failure(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        dumped: dict[str, Any] = handler(self)
        return {k: v for k, v in dumped.items() if v is not None or k not in self.omitted_when_null}
