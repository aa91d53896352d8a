"""What the core reports as a turn runs: typed events, each carrying its durability.

The core never names a wire method: `processor/projection.py` is the one place that turns these
into notifications (and approval asks into server requests). Plain slotted dataclasses, not models
and not frozen: they are built on the hot path (one per streamed delta) and at import, where models
or frozen dataclasses would cost several times more. Nothing mutates an event once emitted.

Items are the typed `core/items.py` payloads; turn errors ride along as the JSON the store keeps
in the turn's row.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, ClassVar

from tether_server.core.items import AgentMessage, ThreadItem
from tether_server.providers.base import TokenUsage

Json = dict[str, Any]


class Durability(enum.Enum):
    """How the thread handle treats an event (see docs/architecture.md, Durability)."""

    DURABLE = "durable"
    """Committed to the store, with everything recorded since the last commit, before anyone sees it."""
    LAZY = "lazy"
    """Sent at once and written with the next commit: a start or a state, never a completion, so a
    crash that loses it loses nothing reported complete."""
    EPHEMERAL = "ephemeral"
    """A delta: kept in the in-memory ring and fanned out, never written."""


@dataclass(slots=True)
class CoreEvent:
    """Base of every event a thread reports."""

    durability: ClassVar[Durability] = Durability.DURABLE
    thread_id: str


# ---- thread ----------------------------------------------------------------------------------------


@dataclass(slots=True)
class ThreadStatus:
    """idle, active (with what it waits on), systemError (the last turn failed) or notLoaded."""

    kind: str
    active_flags: tuple[str, ...] = ()

    @staticmethod
    def active(*flags: str) -> ThreadStatus:
        return ThreadStatus("active", flags)


IDLE = ThreadStatus("idle")
NOT_LOADED = ThreadStatus("notLoaded")
SYSTEM_ERROR = ThreadStatus("systemError")


@dataclass(slots=True)
class ThreadStatusChanged(CoreEvent):
    durability: ClassVar[Durability] = Durability.LAZY
    status: ThreadStatus


@dataclass(slots=True)
class ThreadClosed(CoreEvent):
    """The thread was unloaded."""


@dataclass(slots=True)
class ThreadReverted(CoreEvent):
    """The thread's history was cut back to before a turn."""


@dataclass(slots=True)
class ThreadWarning(CoreEvent):
    durability: ClassVar[Durability] = Durability.LAZY
    message: str


# ---- turn ------------------------------------------------------------------------------------------


@dataclass(slots=True)
class TurnEvent(CoreEvent):
    """Base of events scoped to one turn."""

    turn_id: str


@dataclass(slots=True)
class TurnStarted(TurnEvent):
    durability: ClassVar[Durability] = Durability.LAZY
    started_at: int  # unix seconds


@dataclass(slots=True)
class TurnCompleted(TurnEvent):
    """A turn ended; `final` is the last agent message of a completed turn (its summary)."""

    status: str  # completed | interrupted | failed
    started_at: int | None
    completed_at: int | None
    duration_ms: int | None
    error: Json | None = None
    final: AgentMessage | None = None


@dataclass(slots=True)
class TurnFailed(TurnEvent):
    """A turn error; `will_retry` when the request is about to be retried (the turn goes on)."""

    error: Json
    will_retry: bool


@dataclass(slots=True)
class PlanStep:
    step: str
    status: str  # pending | inProgress | completed


@dataclass(slots=True)
class PlanUpdated(TurnEvent):
    durability: ClassVar[Durability] = Durability.LAZY
    explanation: str | None
    plan: tuple[PlanStep, ...]


@dataclass(slots=True)
class DiffUpdated(TurnEvent):
    """The unified diff of everything the turn changed so far."""

    durability: ClassVar[Durability] = Durability.LAZY
    diff: str


@dataclass(slots=True)
class TokenUsageUpdated(TurnEvent):
    durability: ClassVar[Durability] = Durability.LAZY
    total: TokenUsage
    last: TokenUsage
    context_window: int | None


# ---- items -----------------------------------------------------------------------------------------


@dataclass(slots=True)
class ItemStarted(TurnEvent):
    """An item began (the projection renders it now; the core goes on filling it in)."""

    durability: ClassVar[Durability] = Durability.LAZY
    item: ThreadItem


@dataclass(slots=True)
class ItemCompleted(TurnEvent):
    """An item reached its final state (recorded in the same commit)."""

    item: ThreadItem


@dataclass(slots=True)
class ItemDelta(TurnEvent):
    """Base of streamed pieces of one item."""

    durability: ClassVar[Durability] = Durability.EPHEMERAL
    item_id: str


@dataclass(slots=True)
class AgentMessageDelta(ItemDelta):
    delta: str


@dataclass(slots=True)
class PlanDelta(ItemDelta):
    """Text of plan mode's proposed plan, streamed (the completed item is authoritative)."""

    delta: str


@dataclass(slots=True)
class ReasoningSummaryPartAdded(ItemDelta):
    summary_index: int


@dataclass(slots=True)
class ReasoningSummaryDelta(ItemDelta):
    delta: str
    summary_index: int


@dataclass(slots=True)
class ReasoningTextDelta(ItemDelta):
    delta: str
    content_index: int


@dataclass(slots=True)
class CommandOutputDelta(ItemDelta):
    delta: str


@dataclass(slots=True)
class McpToolCallProgress(ItemDelta):
    """A progress message from a running MCP tool."""

    message: str


@dataclass(slots=True)
class TerminalInteraction(ItemDelta):
    """Text written to a running command's stdin."""

    process_id: str
    stdin: str


# ---- hooks -----------------------------------------------------------------------------------------


@dataclass(slots=True)
class HookRun:
    """One run of one configured hook handler, as its start and end report it."""

    id: str
    event_name: str  # camelCase
    scope: str  # thread | turn
    source_path: str
    source: str
    display_order: int
    status: str  # running | completed | failed | blocked | stopped
    status_message: str | None
    started_at: int  # unix seconds
    execution_mode: str = "sync"
    completed_at: int | None = None
    duration_ms: int | None = None
    entries: tuple[tuple[str, str], ...] = ()  # (kind, text)
    handler_type: str = "command"  # command | mcpTool


@dataclass(slots=True)
class HookStarted(TurnEvent):
    durability: ClassVar[Durability] = Durability.LAZY
    run: HookRun


@dataclass(slots=True)
class HookCompleted(TurnEvent):
    run: HookRun


# ---- approvals -------------------------------------------------------------------------------------


@dataclass(slots=True)
class AutoReviewStarted(TurnEvent):
    """The automatic reviewer began judging one action (in place of a human)."""

    durability: ClassVar[Durability] = Durability.LAZY
    review_id: str
    target_item_id: str | None
    started_at_ms: int
    action: Json


@dataclass(slots=True)
class AutoReviewCompleted(TurnEvent):
    review_id: str
    target_item_id: str | None
    started_at_ms: int
    action: Json
    status: str  # approved | denied
    risk_level: str | None
    rationale: str
    completed_at_ms: int


@dataclass(slots=True)
class ApprovalResolved(CoreEvent):
    """A pending approval request was answered or cleared."""

    request_id: int | str


@dataclass(slots=True)
class CommandApprovalAsk:
    """May this command run? (asked of the clients, or of the automatic reviewer)."""

    thread_id: str
    turn_id: str
    item_id: str
    started_at_ms: int
    command: str
    cwd: str
    command_actions: list[Json]
    reason: str | None
    amendment: tuple[str, ...] | None = None  # an allow rule the user may accept instead


@dataclass(slots=True)
class FileChangeApprovalAsk:
    """May this patch be written? `files` is for the reviewer; clients see the item instead."""

    thread_id: str
    turn_id: str
    item_id: str
    started_at_ms: int
    files: tuple[str, ...]


@dataclass(slots=True)
class McpToolApprovalAsk:
    """May this MCP tool be called? Put to the clients as an MCP-style elicitation."""

    thread_id: str
    turn_id: str
    item_id: str
    started_at_ms: int
    server: str
    tool: str
    arguments: Any
    destructive: bool


ApprovalAsk = CommandApprovalAsk | FileChangeApprovalAsk | McpToolApprovalAsk


@dataclass(slots=True)
class ApprovalAnswer:
    """The decision on an ask: accept, acceptForSession, acceptWithExecpolicyAmendment, decline or
    cancel; `amendment` is the allow rule (argv prefix) an amendment decision carries."""

    decision: str
    amendment: tuple[str, ...] | None = None


ACCEPTED = frozenset({"accept", "acceptForSession", "acceptWithExecpolicyAmendment"})


# ---- questions to the user (plan mode) -------------------------------------------------------------


@dataclass(slots=True)
class UserInputQuestion:
    """One question of `request_user_input`; `options` are (label, description) pairs."""

    id: str
    header: str
    question: str
    options: tuple[tuple[str, str], ...] | None


@dataclass(slots=True)
class UserInputAsk:
    """Questions the model puts to the user; always asked of the clients, never of a reviewer."""

    thread_id: str
    turn_id: str
    item_id: str
    questions: tuple[UserInputQuestion, ...]


@dataclass(slots=True)
class UserInputAnswer:
    """The chosen or typed answers by question id; None when the client refused to answer."""

    answers: dict[str, tuple[str, ...]] | None
