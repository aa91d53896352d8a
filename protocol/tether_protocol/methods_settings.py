"""The method table's settings-page part: providers, feature flags, permission profiles, account
limits and feedback. `methods.CLIENT_METHODS` takes every spec of this module too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether_protocol.common import EmptyParams
from tether_protocol.lazy_models import models
from tether_protocol.spec import MethodSpec

# The models load on first use (lazy_models); mypy reads the real modules.
if TYPE_CHECKING:
    from tether_protocol.v2 import account_limits as al
    from tether_protocol.v2 import experimental_feature as xf
    from tether_protocol.v2 import feedback as fb
    from tether_protocol.v2 import model_provider as mp
else:
    al = models("tether_protocol.v2.account_limits")
    xf = models("tether_protocol.v2.experimental_feature")
    fb = models("tether_protocol.v2.feedback")
    mp = models("tether_protocol.v2.model_provider")

MODEL_PROVIDER_LIST = MethodSpec(
    "modelProvider/list",
    mp.ModelProviderListParams,
    mp.ModelProviderListResponse,
    doc="Configured model providers and the default one.",
)
MODEL_PROVIDER_CAPABILITIES_READ = MethodSpec(
    "modelProvider/capabilities/read",
    mp.ModelProviderCapabilitiesReadParams,
    mp.ModelProviderCapabilitiesReadResponse,
    doc="Hosted tools of the provider in use.",
)
EXPERIMENTAL_FEATURE_LIST = MethodSpec(
    "experimentalFeature/list",
    xf.ExperimentalFeatureListParams,
    xf.ExperimentalFeatureListResponse,
    doc="Codex's feature flags and their state from config and runtime enablement (paged).",
)
EXPERIMENTAL_FEATURE_ENABLEMENT_SET = MethodSpec(
    "experimentalFeature/enablement/set",
    xf.ExperimentalFeatureEnablementSetParams,
    xf.ExperimentalFeatureEnablementSetResponse,
    doc="Turn runtime-toggleable features on or off for this process.",
)
PERMISSION_PROFILE_LIST = MethodSpec(
    "permissionProfile/list",
    xf.PermissionProfileListParams,
    xf.PermissionProfileListResponse,
    doc="The built-in permission profiles (paged).",
)
ACCOUNT_RATE_LIMITS_READ = MethodSpec(
    "account/rateLimits/read",
    al.GetAccountRateLimitsParams,
    al.GetAccountRateLimitsResponse,
    doc="Usage limits of a ChatGPT account (an error for API keys and no account).",
)
ACCOUNT_USAGE_READ = MethodSpec(
    "account/usage/read",
    al.GetAccountTokenUsageParams,
    al.GetAccountTokenUsageResponse,
    doc="Token usage of a ChatGPT account (an error for API keys and no account).",
)
ACCOUNT_WORKSPACE_MESSAGES_READ = MethodSpec(
    "account/workspaceMessages/read",
    EmptyParams,
    al.GetWorkspaceMessagesResponse,
    doc="Workspace messages of a ChatGPT account (an error for API keys and no account).",
)
ACCOUNT_SECURITY_SETUP_READ = MethodSpec(
    "account/securitySetup/read",
    EmptyParams,
    al.GetAccountSecuritySetupResponse,
    doc="A security reminder for the account (none).",
)
ACCOUNT_LOGIN_CANCEL = MethodSpec(
    "account/login/cancel",
    al.CancelLoginAccountParams,
    al.CancelLoginAccountResponse,
    doc="Cancel a pending browser sign-in (there is never one: API keys only).",
)
FEEDBACK_SAVE = MethodSpec(
    "feedback/save",
    fb.FeedbackSaveParams,
    fb.FeedbackSaveResponse,
    doc="Write a feedback ZIP to a new absolute path.",
)
FEEDBACK_UPLOAD = MethodSpec(
    "feedback/upload",
    fb.FeedbackUploadParams,
    fb.FeedbackUploadResponse,
    doc="Send feedback (no endpoint: always an internal error, as Codex offline).",
)
