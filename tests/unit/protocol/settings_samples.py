"""Reference samples of the settings-page methods: providers, feature flags, permission profiles,
account limits and feedback."""

from __future__ import annotations

from tether_protocol.common import WireModel
from tether_protocol.v2 import account_limits as al
from tether_protocol.v2 import experimental_feature as xf
from tether_protocol.v2 import feedback as fb
from tether_protocol.v2 import model_provider as mp


def settings_samples() -> list[tuple[str, WireModel]]:
    """(reference definition name, instance) for each settings-page model."""
    env = mp.EnvGatewayAuth(env_key="K")
    custom = mp.CustomGatewayProviderSettings(auth=env)
    provider = mp.ModelProviderSummary(
        id="p", name="P", can_edit=True, base_url="http://h/v1", settings=custom
    )
    feature = xf.ExperimentalFeature(
        name="f", stage="beta", display_name="F", enabled=True, default_enabled=False
    )
    profile = xf.PermissionProfileSummary(id=":workspace", allowed=True)
    group = al.ThreadUsageBreakdownGroup(model="m", estimated_usage_credits_micros=1, input_tokens=3)
    feedback = {"classification": "bug", "reason": "r", "tags": {"a": "b"}}
    return [
        ("ModelProviderListParams", mp.ModelProviderListParams()),
        (
            "ModelProviderListResponse",
            mp.ModelProviderListResponse(data=[provider], default_provider_id="p", can_change_default=True),
        ),
        ("ModelProviderSummary", provider),
        ("GatewayAuth", env),
        ("GatewayAuth", mp.NoneGatewayAuth()),
        ("GatewayAuth", mp.ExternalGatewayAuth()),
        ("ProviderSettings", custom),
        ("ProviderSettings", mp.OpenaiProviderSettings()),
        ("ModelProviderCapabilitiesReadParams", mp.ModelProviderCapabilitiesReadParams()),
        ("ModelProviderCapabilitiesReadResponse", mp.ModelProviderCapabilitiesReadResponse()),
        ("ExperimentalFeatureListParams", xf.ExperimentalFeatureListParams(cursor="1", limit=2)),
        (
            "ExperimentalFeatureListResponse",
            xf.ExperimentalFeatureListResponse(data=[feature], next_cursor="1"),
        ),
        ("ExperimentalFeature", feature),
        (
            "ExperimentalFeatureEnablementSetParams",
            xf.ExperimentalFeatureEnablementSetParams(enablement={"f": True}),
        ),
        (
            "ExperimentalFeatureEnablementSetResponse",
            xf.ExperimentalFeatureEnablementSetResponse(enablement={}),
        ),
        ("PermissionProfileListParams", xf.PermissionProfileListParams(cwd="/w")),
        ("PermissionProfileListResponse", xf.PermissionProfileListResponse(data=[profile])),
        ("PermissionProfileSummary", profile),
        ("GetAccountRateLimitsParams", al.GetAccountRateLimitsParams()),
        ("GetAccountRateLimitsResponse", al.GetAccountRateLimitsResponse(rate_limits={})),
        ("GetAccountTokenUsageParams", al.GetAccountTokenUsageParams()),
        (
            "GetAccountTokenUsageResponse",
            al.GetAccountTokenUsageResponse(summary=al.AccountTokenUsageSummary()),
        ),
        ("GetWorkspaceMessagesResponse", al.GetWorkspaceMessagesResponse(feature_enabled=False, messages=[])),
        ("ThreadUsage", al.ThreadUsage(thread_id="t", estimated_usage_credits_micros=1, groups=[group])),
        ("ThreadUsageBreakdownGroup", group),
        ("AccountTokenUsageDailyBucket", al.AccountTokenUsageDailyBucket(start_date="2026-11-30", tokens=5)),
        ("AccountTokenUsageSummary", al.AccountTokenUsageSummary(lifetime_tokens=7)),
        ("WorkspaceMessage", al.WorkspaceMessage(message_id="m", message_type="headline", message_body="b")),
        ("GetAccountSecuritySetupResponse", al.GetAccountSecuritySetupResponse()),
        ("CancelLoginAccountParams", al.CancelLoginAccountParams(login_id="l")),
        ("CancelLoginAccountResponse", al.CancelLoginAccountResponse(status="notFound")),
        ("FeedbackUploadParams", fb.FeedbackUploadParams.model_validate(feedback)),
        ("FeedbackUploadResponse", fb.FeedbackUploadResponse(thread_id="t")),
        ("FeedbackSaveParams", fb.FeedbackSaveParams.model_validate({**feedback, "savePath": "/tmp/f.zip"})),
        ("FeedbackSaveResponse", fb.FeedbackSaveResponse(saved_path="/tmp/f.zip", thread_id="t")),
    ]
