"""Params of server→client notifications (thread, turn and item events)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from tether_protocol.common import JsonValue, WireModel
from tether_protocol.jsonrpc import RequestId
from tether_protocol.v2.item_parts import FileUpdateChange
from tether_protocol.v2.items import ThreadItem
from tether_protocol.v2.thread import Thread, ThreadStatus
from tether_protocol.v2.turn import Turn, TurnError


class ThreadStartedNotification(WireModel):
    """`thread/started`."""

    thread: Thread


class ThreadStatusChangedNotification(WireModel):
    """`thread/status/changed`."""

    thread_id: str
    status: ThreadStatus


class ThreadIdNotification(WireModel):
    """Base of notifications that carry only a thread id."""

    thread_id: str


class ThreadClosedNotification(ThreadIdNotification):
    """`thread/closed`: the thread was unloaded."""


class ThreadArchivedNotification(ThreadIdNotification):
    """`thread/archived`."""


class ThreadUnarchivedNotification(ThreadIdNotification):
    """`thread/unarchived`."""


class ThreadDeletedNotification(ThreadIdNotification):
    """`thread/deleted`."""


class ThreadRevertedNotification(ThreadIdNotification):
    """`thread/reverted`."""


class ThreadGoalClearedNotification(ThreadIdNotification):
    """`thread/goal/cleared`: the thread's goal was removed."""


class ThreadNameUpdatedNotification(WireModel):
    """`thread/name/updated`."""

    thread_id: str
    thread_name: str | None = None


class TokenUsageBreakdown(WireModel):
    """Token counts for one span (a turn or the whole thread)."""

    total_tokens: int = 0
    input_tokens: int = 0
    cached_input_tokens: int = 0
    cache_write_input_tokens: int = 0
    output_tokens: int = 0
    reasoning_output_tokens: int = 0


class ThreadTokenUsage(WireModel):
    """Thread totals, last-turn usage and the context window."""

    total: TokenUsageBreakdown
    last: TokenUsageBreakdown
    model_context_window: int | None = None


class ThreadTokenUsageUpdatedNotification(WireModel):
    """`thread/tokenUsage/updated`."""

    thread_id: str
    turn_id: str
    token_usage: ThreadTokenUsage


class ContextCompactedNotification(WireModel):
    """`thread/compacted` (deprecated; Codex no longer emits it)."""

    thread_id: str
    turn_id: str


class TurnStartedNotification(WireModel):
    """`turn/started`."""

    thread_id: str
    turn: Turn


class TurnCompletedNotification(WireModel):
    """`turn/completed`."""

    thread_id: str
    turn: Turn


class TurnDiffUpdatedNotification(WireModel):
    """`turn/diff/updated`: the unified diff of all changes in the turn so far."""

    thread_id: str
    turn_id: str
    diff: str


class TurnPlanStep(WireModel):
    """One step of the agent's plan."""

    step: str
    status: Literal["pending", "inProgress", "completed"]


class TurnPlanUpdatedNotification(WireModel):
    """`turn/plan/updated`."""

    thread_id: str
    turn_id: str
    explanation: str | None = None
    plan: list[TurnPlanStep]


class ItemStartedNotification(WireModel):
    """`item/started`."""

    item: ThreadItem
    thread_id: str
    turn_id: str
    started_at_ms: int


class ItemCompletedNotification(WireModel):
    """`item/completed`."""

    item: ThreadItem
    thread_id: str
    turn_id: str
    completed_at_ms: int
    content_token_count: int | None = None


class ItemDeltaNotification(WireModel):
    """Base of streamed text deltas for one item."""

    thread_id: str
    turn_id: str
    item_id: str
    delta: str


class AgentMessageDeltaNotification(ItemDeltaNotification):
    """`item/agentMessage/delta`."""


class PlanDeltaNotification(ItemDeltaNotification):
    """`item/plan/delta`."""


class CommandExecutionOutputDeltaNotification(ItemDeltaNotification):
    """`item/commandExecution/outputDelta` (UTF-8 text)."""


class FileChangeOutputDeltaNotification(ItemDeltaNotification):
    """`item/fileChange/outputDelta`."""


class ReasoningSummaryTextDeltaNotification(ItemDeltaNotification):
    """`item/reasoning/summaryTextDelta`."""

    summary_index: int


class ReasoningTextDeltaNotification(ItemDeltaNotification):
    """`item/reasoning/textDelta`."""

    content_index: int


class ReasoningSummaryPartAddedNotification(WireModel):
    """`item/reasoning/summaryPartAdded`."""

    thread_id: str
    turn_id: str
    item_id: str
    summary_index: int


class TerminalInteractionNotification(WireModel):
    """`item/commandExecution/terminalInteraction`: stdin written to a running command."""

    thread_id: str
    turn_id: str
    item_id: str
    process_id: str
    stdin: str


class FileChangePatchUpdatedNotification(WireModel):
    """`item/fileChange/patchUpdated`."""

    thread_id: str
    turn_id: str
    item_id: str
    changes: list[FileUpdateChange]


class ServerRequestResolvedNotification(WireModel):
    """`serverRequest/resolved`: a pending server request was answered or cleared."""

    thread_id: str
    request_id: RequestId


class ErrorNotification(WireModel):
    """`error`: a turn error, possibly followed by a retry."""

    error: TurnError
    will_retry: bool
    thread_id: str
    turn_id: str


class WarningNotification(WireModel):
    """`warning`."""

    thread_id: str | None = None
    message: str


class DeprecationNoticeNotification(WireModel):
    """`deprecationNotice`."""

    summary: str
    details: str | None = None


class TextPosition(WireModel):
    """1-based line/column in a config file."""

    line: int
    column: int


class TextRange(WireModel):
    """A span in a config file."""

    start: TextPosition
    end: TextPosition


class ConfigWarningNotification(WireModel):
    """`configWarning`: a configuration problem."""

    summary: str
    details: str | None = None
    path: str | None = None
    range: TextRange | None = None

    def wire(self) -> dict[str, Any]:
        # Codex leaves out the fields it was not given (no `"path": null` for a warning about
        # no particular file), unlike every other model, which writes its nulls.
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


class RemoteControlStatusChangedNotification(WireModel):
    """`remoteControl/status/changed` (sent after initialize)."""

    status: Literal["disabled", "connecting", "connected", "errored"]
    server_name: str
    installation_id: str
    environment_id: str | None = None


class RateLimitWindow(WireModel):
    """Usage of one rate-limit window."""

    used_percent: int
    window_duration_mins: int | None = None
    resets_at: int | None = None


class RateLimitSnapshot(WireModel):
    """Current rate limits of the account."""

    limit_id: str | None = None
    limit_name: str | None = None
    primary: RateLimitWindow | None = None
    secondary: RateLimitWindow | None = None
    credits: JsonValue = None
    individual_limit: JsonValue = None
    plan_type: str | None = None
    rate_limit_reached_type: str | None = None
    normal_model_slug: str | None = None
    spend_control_reached: bool | None = None


class AccountRateLimitsUpdatedNotification(WireModel):
    """`account/rateLimits/updated`."""

    rate_limits: RateLimitSnapshot = Field(default_factory=RateLimitSnapshot)
