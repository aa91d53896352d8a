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


class AccountTokenUsageSummary(WireModel):
    """The account's token statistics, as its ChatGPT backend profile reports them."""

    lifetime_tokens: int | None = None
    peak_daily_tokens: int | None = None
    longest_running_turn_sec: int | None = None
    current_streak_days: int | None = None
    longest_streak_days: int | None = None


class AccountTokenUsageDailyBucket(WireModel):
    """Tokens used on one day (`startDate` as the backend wrote it)."""

    start_date: str
    tokens: int


class ThreadUsageBreakdownGroup(WireModel):
    """One model/effort/speed group of a thread's estimated usage."""

    model: str | None = None
    reasoning_effort: str | None = None
    speed: str | None = None
    estimated_usage_credits_micros: int
    net_new_input_tokens: int | None = None
    cached_input_tokens: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None


class ThreadUsage(WireModel):
    """A thread's estimated usage, as the ChatGPT backend bills it."""

    thread_id: str
    estimated_usage_credits_micros: int
    estimated_usage_usd_micros: int | None = None
    native_usage_usd_micros: int | None = None
    groups: list[ThreadUsageBreakdownGroup]


class GetAccountTokenUsageResponse(WireModel):
    """`account/usage/read` result; only a ChatGPT account gets one."""

    summary: AccountTokenUsageSummary
    daily_usage_buckets: list[AccountTokenUsageDailyBucket] | None = None
    thread_usage: ThreadUsage | None = None


class WorkspaceMessage(WireModel):
    """A message the workspace's admins posted (times in Unix seconds)."""

    message_id: str
    message_type: Literal["headline", "announcement", "unknown"]
    message_body: str
    created_at: int | None = None
    archived_at: int | None = None


class GetWorkspaceMessagesResponse(WireModel):
    """`account/workspaceMessages/read` result; only a ChatGPT account gets one."""

    feature_enabled: bool
    messages: list[WorkspaceMessage]


class GetAccountSecuritySetupResponse(WireModel):
    """`account/securitySetup/read` result: a reminder for the account, null when none applies."""

    notice: JsonValue = None


class CancelLoginAccountParams(WireModel):
    """`account/login/cancel` params."""

    login_id: str


class CancelLoginAccountResponse(WireModel):
    """`account/login/cancel` result."""

    status: Literal["canceled", "notFound"]
