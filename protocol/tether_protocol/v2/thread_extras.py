"""Experimental thread methods clients call: search, read markers, settings between turns."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from tether_protocol.common import JsonValue, WireModel
from tether_protocol.v2.sandbox import ApprovalsReviewer, AskForApproval, SandboxPolicy
from tether_protocol.v2.thread import ActivePermissionProfile, Thread, ThreadEnvironment
from tether_protocol.v2.thread_history import SortDirection, ThreadReadState, ThreadSourceKind
from tether_protocol.v2.thread_lifecycle import MultiAgentMode
from tether_protocol.v2.turn import CollaborationMode, Personality, ReasoningSummary

ThreadSearchSortKey = Literal["created_at", "updated_at", "recency_at"]


class ThreadSearchParams(WireModel):
    """`thread/search` params: a required full-text `searchTerm` and `thread/list`'s filters."""

    search_term: str
    cursor: str | None = None
    limit: int | None = None
    sort_key: ThreadSearchSortKey | None = None
    sort_direction: SortDirection | None = None
    source_kinds: list[ThreadSourceKind] | None = None
    archived: bool | None = None
    current_account_only: bool = False
    include_attached_threads: bool = False


class ThreadSearchResult(WireModel):
    """One matching thread and a snippet of the matching text."""

    thread: Thread
    snippet: str


class ThreadSearchResponse(WireModel):
    """`thread/search` result."""

    data: list[ThreadSearchResult]
    next_cursor: str | None = None
    backwards_cursor: str | None = None


class ReadOperation(WireModel):
    """Mark the thread read."""

    type: Literal["read"] = "read"


class UnreadOperation(WireModel):
    """Mark the thread unread from its start."""

    type: Literal["unread"] = "unread"


ThreadReadStateOperation = TypeAliasType(
    "ThreadReadStateOperation", Annotated[ReadOperation | UnreadOperation, Field(discriminator="type")]
)


class ThreadReadStateUpdateParams(WireModel):
    """`thread/readState/update` params; `expectedRevision` is the revision the caller saw."""

    thread_id: str
    operation: ThreadReadStateOperation
    expected_revision: str


class ThreadReadStateUpdateResponse(WireModel):
    """`thread/readState/update` result: the new read state."""

    read_state: ThreadReadState


class ThreadReadStateChangedNotification(WireModel):
    """A thread's read state changed (a turn finished, or a client marked it)."""

    thread_id: str
    read_state: ThreadReadState


class ThreadSettingsUpdateParams(WireModel):
    """`thread/settings/update` params: overrides for the thread's next turns (null keeps)."""

    thread_id: str
    cwd: str | None = None
    approval_policy: AskForApproval | None = None
    approvals_reviewer: ApprovalsReviewer | None = None
    sandbox_policy: SandboxPolicy | None = None
    model: str | None = None
    effort: str | None = None
    summary: ReasoningSummary | None = None
    personality: Personality | None = None
    service_tier: str | None = None
    collaboration_mode: JsonValue = None


class ThreadSettingsUpdateResponse(WireModel):
    """`thread/settings/update` result (`{}`)."""


class ThreadSettings(WireModel):
    """The settings a thread's next turns run with, as `thread/settings/updated` reports them."""

    disabled_plugin_ids: list[str] = Field(default_factory=list)
    cwd: str
    environments: list[ThreadEnvironment] | None = None
    approval_policy: AskForApproval
    approvals_reviewer: ApprovalsReviewer
    sandbox_policy: SandboxPolicy
    active_permission_profile: ActivePermissionProfile | None = None
    model: str
    model_provider: str
    service_tier: str | None = None
    effort: str | None = None
    summary: ReasoningSummary | None = None
    collaboration_mode: CollaborationMode
    multi_agent_mode: MultiAgentMode | None = None
    personality: Personality | None = None


class ThreadSettingsUpdatedNotification(WireModel):
    """`thread/settings/updated`: a thread's settings changed (turn overrides, settings update)."""

    thread_id: str
    thread_settings: ThreadSettings


class ThreadBackgroundTerminalsListParams(WireModel):
    """`thread/backgroundTerminals/list` params."""

    thread_id: str
    cursor: str | None = None
    limit: int | None = None


class ThreadBackgroundTerminal(WireModel):
    """A command of the thread still running after its turn."""

    item_id: str
    process_id: str
    command: str
    cwd: str
    os_pid: int | None = None
    cpu_percent: float | None = None
    rss_kb: int | None = None


class ThreadBackgroundTerminalsListResponse(WireModel):
    """`thread/backgroundTerminals/list` result."""

    data: list[ThreadBackgroundTerminal] = Field(default_factory=list)
    next_cursor: str | None = None
