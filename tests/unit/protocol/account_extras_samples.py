"""Reference samples of the account-page extras (gateway sign-in, reset credits, credit nudges,
the Windows sandbox, MCP OAuth login), the ChatGPT account, `externalAgentConfig/*` and
`modelProvider/config/write`."""

from __future__ import annotations

from tests.unit.protocol import wire_samples as s

from tether_protocol.common import WireModel
from tether_protocol.v2 import account as acct
from tether_protocol.v2 import account_extras as ax
from tether_protocol.v2 import external_agent as xa
from tether_protocol.v2 import model_provider as mp
from tether_protocol.v2 import model_provider_write as pw

IMPORT_ID = "01a232f8-92f5-7672-a422-03ec35425eb0"

_SUCCESS = xa.ImportSuccess(item_type="SKILLS", cwd=s.CWD, source="/h/.claude/skills/a", target="/h/a")
_FAILURE = xa.ImportFailure(
    item_type="MCP_SERVER_CONFIG", error_type="io", failure_stage="write", message="denied", cwd=None
)
_RESULT = xa.ImportTypeResult(item_type="SKILLS", successes=[_SUCCESS], failures=[_FAILURE])

NOTIFICATIONS: dict[str, WireModel] = {
    "windowsSandbox/setupCompleted": ax.WindowsSandboxSetupCompletedNotification(
        mode="elevated", success=False, error="Windows sandbox setup is only supported on Windows"
    ),
    "mcpServer/oauthLogin/completed": ax.McpServerOauthLoginCompletedNotification(
        name="docs", success=True, thread_id=None, login_id="l1"
    ),
    "externalAgentConfig/import/progress": xa.ExternalAgentConfigImportProgressNotification(
        import_id=IMPORT_ID, item_type_results=[_RESULT]
    ),
    "externalAgentConfig/import/completed": xa.ExternalAgentConfigImportCompletedNotification(
        import_id=IMPORT_ID, item_type_results=[_RESULT, xa.ImportTypeResult(item_type="AGENTS_MD")]
    ),
}
"""Params of the notifications these methods send, keyed by method."""


def account_extras_samples() -> list[tuple[str, WireModel]]:
    """(reference definition name, instance) for each model of these areas."""
    named = xa.Named(name="lint")
    details = xa.MigrationDetails(skills=[named], mcp_servers=[xa.Named(name="docs")])
    item = xa.MigrationItem(
        item_type="SKILLS", description="Skills from ~/.claude/skills", cwd=s.CWD, details=details
    )
    history = xa.ImportHistory(
        import_id=IMPORT_ID, provider_id="p", completed_at_ms=s.TS, successes=[_SUCCESS], failures=[_FAILURE]
    )
    return [
        ("Account", acct.ChatgptAccount(email="a@example.com", plan_type="plus", workspace_name="W")),
        ("Account", acct.ChatgptAccount()),
        ("GetAccountResponse", acct.GetAccountResponse(account=acct.ChatgptAccount(), user_id="u")),
        ("ChatgptAuthTokensRefreshParams", acct.ChatgptAuthTokensRefreshParams(previous_account_id="acc")),
        ("GatewayOAuthReadParams", ax.GatewayOAuthReadParams(model_provider="openai")),
        (
            "GatewayOAuthReadResponse",
            ax.GatewayOAuthReadResponse(provider_id="openai", provider_name="OpenAI", required=False),
        ),
        ("GatewayOAuthLoginParams", ax.GatewayOAuthLoginParams(device_auth=True)),
        (
            "GatewayOAuthPrompt",
            ax.GatewayOAuthPrompt(login_id="l", user_code="ABCD", verification_url="https://g/device"),
        ),
        ("GatewayOAuthLoginResponse", ax.GatewayOAuthLoginResponse()),
        ("GatewayOAuthCancelResponse", ax.GatewayOAuthCancelResponse()),
        (
            "ConsumeAccountRateLimitResetCreditParams",
            ax.ConsumeAccountRateLimitResetCreditParams(idempotency_key="k", credit_id="c"),
        ),
        (
            "ConsumeAccountRateLimitResetCreditResponse",
            ax.ConsumeAccountRateLimitResetCreditResponse(outcome="noCredit"),
        ),
        ("SendAddCreditsNudgeEmailParams", ax.SendAddCreditsNudgeEmailParams(credit_type="usage_limit")),
        ("SendAddCreditsNudgeEmailResponse", ax.SendAddCreditsNudgeEmailResponse(status="cooldown_active")),
        ("WindowsSandboxSetupStartParams", ax.WindowsSandboxSetupStartParams(mode="unelevated", cwd=s.CWD)),
        ("WindowsSandboxSetupStartResponse", ax.WindowsSandboxSetupStartResponse(started=True)),
        ("WindowsSandboxReadinessResponse", ax.WindowsSandboxReadinessResponse(status="notConfigured")),
        (
            "McpServerOauthLoginParams",
            ax.McpServerOauthLoginParams(
                name="docs", client_registration="dcr", scopes=["r"], timeout_secs=30
            ),
        ),
        (
            "McpServerOauthLoginResponse",
            ax.McpServerOauthLoginResponse(authorization_url="https://a/authorize", login_id="l1"),
        ),
        (
            "McpServerOauthLoginCompletedNotification",
            ax.McpServerOauthLoginCompletedNotification(name="docs", success=False, error="denied"),
        ),
        ("SkillMigration", named),
        ("McpServerMigration", named),
        ("HookMigration", named),
        ("SubagentMigration", named),
        ("CommandMigration", named),
        ("MigrationDetails", details),
        ("ExternalAgentConfigMigrationItem", item),
        (
            "ExternalAgentConfigDetectParams",
            xa.ExternalAgentConfigDetectParams(include_home=True, cwds=[s.CWD], max_sessions=5),
        ),
        ("ExternalAgentConfigDetectResponse", xa.ExternalAgentConfigDetectResponse(items=[item])),
        (
            "ExternalAgentConfigImportParams",
            xa.ExternalAgentConfigImportParams(migration_items=[item], provider_id="p"),
        ),
        ("ExternalAgentConfigImportResponse", xa.ImportId(import_id=IMPORT_ID)),
        ("ExternalAgentConfigImportHistoryRecordResponse", xa.ImportId(import_id=IMPORT_ID)),
        ("ExternalAgentConfigImportItemTypeSuccess", _SUCCESS),
        ("ExternalAgentConfigImportHistoryRecordSuccessParams", _SUCCESS),
        ("ExternalAgentConfigImportItemTypeFailure", _FAILURE),
        ("ExternalAgentConfigImportTypeResult", _RESULT),
        ("ExternalAgentConfigImportHistoryRecordTypeResultParams", _RESULT),
        (
            "ExternalAgentConfigImportProgressNotification",
            xa.ExternalAgentConfigImportNotification(import_id=IMPORT_ID, item_type_results=[]),
        ),
        (
            "ExternalAgentConfigImportHistoryRecordParams",
            xa.ExternalAgentConfigImportHistoryRecordParams(provider_id="p", item_type_results=[_RESULT]),
        ),
        ("ExternalAgentConfigImportHistory", history),
        (
            "ExternalAgentConfigImportHistoriesReadResponse",
            xa.ExternalAgentConfigImportHistoriesReadResponse(data=[history]),
        ),
        *_provider_write_samples(),
    ]


def _provider_write_samples() -> list[tuple[str, WireModel]]:
    custom = pw.CustomGatewayProviderSettingsPatch(
        type="customGateway", name="Gateway", base_url="http://127.0.0.1:9/v1", env_key="GW_KEY"
    )
    bedrock = pw.BedrockProviderSettingsPatch(
        type="bedrock", provider_id="amazon-bedrock", region="us-east-1"
    )
    gcp = pw.GcpProviderSettingsPatch(type="gcp", provider_id="gcp", project_id="proj", location="us")
    provider = mp.ModelProviderSummary(
        id="gateway",
        name="Gateway",
        can_edit=True,
        base_url="http://127.0.0.1:9/v1",
        settings=mp.CustomGatewayProviderSettings(auth=mp.EnvGatewayAuth(env_key="GW_KEY")),
    )
    return [
        ("ProviderSettingsPatch", custom),
        ("ProviderSettingsPatch", bedrock),
        ("ProviderSettingsPatch", gcp),
        ("ModelProviderConfigWriteParams", pw.ModelProviderConfigWriteParams(settings=custom)),
        ("ModelProviderConfigWriteParams", pw.ModelProviderConfigWriteParams(settings=gcp)),
        ("ModelProviderConfigWriteResponse", pw.ModelProviderConfigWriteResponse(provider=provider)),
    ]


def account_extras_schemaless() -> dict[str, WireModel]:
    """Models with no reference definition of their own."""
    return {
        # The client's answer to a server request: the reference ships no schema for those.
        "ChatgptAuthTokensRefreshResponse": acct.ChatgptAuthTokensRefreshResponse(
            access_token="a.b.c", chatgpt_account_id="acc", chatgpt_plan_type="plus"
        ),
        # The closed-object base of the provider patches: no fields of its own.
        "_Patch": pw._Patch(),
    }
