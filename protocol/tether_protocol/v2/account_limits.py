"""What an account page reads beside `account/read`: limits, usage, messages, sign-in cancel."""

from __future__ import annotations

from typing import Literal

from tether_protocol.common import JsonValue, WireModel


class GetAccountRateLimitsParams(WireModel):
    """`account/rateLimits/read` params (optional)."""

    exclude_reset_credit_details: bool = False
    supports_luna_reserve: bool = False


class GetAccountRateLimitsResponse(WireModel):
    """`account/rateLimits/read` result; only a ChatGPT account gets one (Tether has none)."""

    rate_limits: JsonValue


class GetAccountTokenUsageParams(WireModel):
    """`account/usage/read` params (optional)."""

    thread_id: str | None = None


class GetAccountTokenUsageResponse(WireModel):
    """`account/usage/read` result; only a ChatGPT account gets one (Tether has none)."""

    summary: JsonValue


class GetWorkspaceMessagesResponse(WireModel):
    """`account/workspaceMessages/read` result; only a ChatGPT account gets one."""

    feature_enabled: bool
    messages: list[JsonValue]


class GetAccountSecuritySetupResponse(WireModel):
    """`account/securitySetup/read` result: a reminder for the account, null when none applies."""

    notice: JsonValue = None


class CancelLoginAccountParams(WireModel):
    """`account/login/cancel` params."""

    login_id: str


class CancelLoginAccountResponse(WireModel):
    """`account/login/cancel` result."""

    status: Literal["canceled", "notFound"]
