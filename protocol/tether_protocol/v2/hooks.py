"""A hook's run as `hook/started` and `hook/completed` report it."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tether_protocol.common import WireModel
from tether_protocol.v2.workspace import HookEventName, HookSource

HookRunStatus = Literal["running", "completed", "failed", "blocked", "stopped"]
HookOutputEntryKind = Literal["warning", "stop", "feedback", "context", "error"]


class HookOutputEntry(WireModel):
    """One thing a hook said: context for the model, feedback on a block, an error."""

    kind: HookOutputEntryKind
    text: str


class HookRunSummary(WireModel):
    """One run of one hook handler."""

    id: str
    event_name: HookEventName
    handler_type: Literal["command", "mcpTool", "prompt", "agent"] = "command"
    execution_mode: Literal["sync", "async"] = "sync"
    scope: Literal["thread", "turn"]
    source_path: str
    source: HookSource = "unknown"
    display_order: int
    status: HookRunStatus
    status_message: str | None = None
    started_at: int
    completed_at: int | None = None
    duration_ms: int | None = None
    entries: list[HookOutputEntry] = Field(default_factory=list)


class HookStartedNotification(WireModel):
    """`hook/started`: a hook handler began."""

    thread_id: str
    turn_id: str | None = None
    run: HookRunSummary


class HookCompletedNotification(WireModel):
    """`hook/completed`: a hook handler ended (completed, failed, blocked or stopped)."""

    thread_id: str
    turn_id: str | None = None
    run: HookRunSummary
