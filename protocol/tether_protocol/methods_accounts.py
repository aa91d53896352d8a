"""The method table's account-extras part: gateway sign-in, reset credits, credit nudges, the
Windows sandbox, MCP OAuth login, the provider form and the import from other agents.
`methods.CLIENT_METHODS` takes every spec of this module too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether_protocol.common import EmptyParams
from tether_protocol.lazy_models import models
from tether_protocol.spec import MethodSpec

# The models load on first use (lazy_models); mypy reads the real modules.
if TYPE_CHECKING:
    from tether_protocol.v2 import account_extras as ax
    from tether_protocol.v2 import external_agent as xa
    from tether_protocol.v2 import model_provider_write as mw
else:
    ax = models("tether_protocol.v2.account_extras")
    xa = models("tether_protocol.v2.external_agent")
    mw = models("tether_protocol.v2.model_provider_write")

ACCOUNT_GATEWAY_OAUTH_READ = MethodSpec(
    "account/gatewayOAuth/read",
    ax.GatewayOAuthReadParams,
    ax.GatewayOAuthReadResponse,
    doc="Whether a provider signs in through a gateway (none Tether knows does).",
)
ACCOUNT_GATEWAY_OAUTH_LOGIN = MethodSpec(
    "account/gatewayOAuth/login",
    ax.GatewayOAuthLoginParams,
    ax.GatewayOAuthLoginResponse,
    doc="Start a gateway sign-in (refused: no provider uses one).",
)
ACCOUNT_GATEWAY_OAUTH_CANCEL = MethodSpec(
    "account/gatewayOAuth/cancel",
    EmptyParams,
    ax.GatewayOAuthCancelResponse,
    doc="Cancel a pending gateway sign-in (there is never one).",
)
ACCOUNT_RATE_LIMIT_RESET_CREDIT_CONSUME = MethodSpec(
    "account/rateLimitResetCredit/consume",
    ax.ConsumeAccountRateLimitResetCreditParams,
    ax.ConsumeAccountRateLimitResetCreditResponse,
    doc="Redeem a ChatGPT rate-limit reset credit (an error for API keys and no account).",
)
ACCOUNT_SEND_ADD_CREDITS_NUDGE_EMAIL = MethodSpec(
    "account/sendAddCreditsNudgeEmail",
    ax.SendAddCreditsNudgeEmailParams,
    ax.SendAddCreditsNudgeEmailResponse,
    doc="Ask a ChatGPT workspace owner for credits (an error for API keys and no account).",
)
WINDOWS_SANDBOX_SETUP_START = MethodSpec(
    "windowsSandbox/setupStart",
    ax.WindowsSandboxSetupStartParams,
    ax.WindowsSandboxSetupStartResponse,
    doc="Set up the Windows sandbox (on Linux: started, then a failed setupCompleted).",
)
WINDOWS_SANDBOX_READINESS = MethodSpec(
    "windowsSandbox/readiness",
    EmptyParams,
    ax.WindowsSandboxReadinessResponse,
    doc="Whether the Windows sandbox is set up (on Linux: notConfigured).",
)
MCP_SERVER_OAUTH_LOGIN = MethodSpec(
    "mcpServer/oauth/login",
    ax.McpServerOauthLoginParams,
    ax.McpServerOauthLoginResponse,
    doc="Sign in to an HTTP MCP server with OAuth: the URL to open; mcpServer/oauthLogin/completed follows.",
)
MODEL_PROVIDER_CONFIG_WRITE = MethodSpec(
    "modelProvider/config/write",
    mw.ModelProviderConfigWriteParams,
    mw.ModelProviderConfigWriteResponse,
    doc="Create or edit a custom provider in config.toml (validated as Codex's settings form).",
)
EXTERNAL_AGENT_CONFIG_DETECT = MethodSpec(
    "externalAgentConfig/detect",
    xa.ExternalAgentConfigDetectParams,
    xa.ExternalAgentConfigDetectResponse,
    doc="What another agent's config holds that Tether can import (MCP servers, skills, instructions).",
)
EXTERNAL_AGENT_CONFIG_IMPORT = MethodSpec(
    "externalAgentConfig/import",
    xa.ExternalAgentConfigImportParams,
    xa.ImportId,
    doc="Import detected items; progress and completion follow as notifications.",
)
EXTERNAL_AGENT_CONFIG_IMPORT_RECORD_HISTORY = MethodSpec(
    "externalAgentConfig/import/recordHistory",
    xa.ExternalAgentConfigImportHistoryRecordParams,
    xa.ImportId,
    doc="Record an import done elsewhere in the import history.",
)
EXTERNAL_AGENT_CONFIG_IMPORT_READ_HISTORIES = MethodSpec(
    "externalAgentConfig/import/readHistories",
    EmptyParams,
    xa.ExternalAgentConfigImportHistoriesReadResponse,
    doc="The import history, newest first.",
)
