"""Reading threads: `thread/list`, `thread/read`, the turn and item pages, `thread/loaded/list`."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from tether_protocol.common import WireModel
from tether_protocol.v2.items import ThreadItem
from tether_protocol.v2.thread import Thread
from tether_protocol.v2.turn import Turn, TurnItemsView

SortDirection = Literal["asc", "desc"]
ThreadSortKey = Literal["created_at", "updated_at", "recency_at", "section_position"]
ThreadSourceKind = Literal[
    "cli",
    "vscode",
    "exec",
    "appServer",
    "subAgent",
    "subAgentReview",
    "subAgentCompact",
    "subAgentThreadSpawn",
    "subAgentOther",
    "unknown",
]


class ThreadListParams(WireModel):
    """`thread/list` params; every filter optional."""

    cursor: str | None = None
    limit: int | None = None
    sort_key: ThreadSortKey | None = None
    sort_direction: SortDirection | None = None
    model_providers: list[str] | None = None
    source_kinds: list[ThreadSourceKind] | None = None
    archived: bool | None = None
    cwd: str | list[str] | None = None
    search_term: str | None = None
    excluded_thread_ids: list[str] | None = None
    section_id: str | None = None
    project_id: str | None = None
    use_state_db_only: bool = False
    current_account_only: bool = False
    originators: list[str] | None = None


class ThreadUnreadStart(WireModel):
    """Everything is unread."""

    type: Literal["threadStart"] = "threadStart"


class ThreadUnreadTurn(WireModel):
    """Unread from this turn on."""

    type: Literal["turn"] = "turn"
    turn_id: str


ThreadUnreadPosition = TypeAliasType(
    "ThreadUnreadPosition", Annotated[ThreadUnreadStart | ThreadUnreadTurn, Field(discriminator="type")]
)


class ThreadReadState(WireModel):
    """Read receipt of a thread (experimental; always emitted)."""

    first_unread: ThreadUnreadPosition | None = None
    revision: str


class ThreadListResponse(WireModel):
    """`thread/list` result."""

    data: list[Thread]
    next_cursor: str | None = None
    backwards_cursor: str | None = None
    read_states: dict[str, ThreadReadState] = Field(default_factory=dict)


class ThreadReadParams(WireModel):
    """`thread/read` params."""

    thread_id: str
    include_turns: bool = False


class ThreadReadResponse(WireModel):
    """`thread/read` result."""

    thread: Thread
    read_state: ThreadReadState | None = None


class ThreadTurnsListParams(WireModel):
    """`thread/turns/list` params."""

    thread_id: str
    cursor: str | None = None
    limit: int | None = None
    sort_direction: SortDirection | None = None
    items_view: TurnItemsView | None = None


class ThreadTurnsListResponse(WireModel):
    """`thread/turns/list` result."""

    data: list[Turn]
    next_cursor: str | None = None
    backwards_cursor: str | None = None


class ThreadItemsListAnchor(WireModel):
    """Cursor anchored at an item (needs `turnId`)."""

    type: Literal["item"] = "item"
    item_id: str


class ThreadItemOutputDeferral(WireModel):
    """Which item kinds should omit their bulky output (experimental)."""

    command_execution: bool | None = None
    mcp_tool_call: bool | None = None


class ThreadItemsListParams(WireModel):
    """`thread/items/list` params."""

    thread_id: str
    turn_id: str | None = None
    cursor: str | ThreadItemsListAnchor | None = None
    limit: int | None = None
    sort_direction: SortDirection | None = None
    defer_output: ThreadItemOutputDeferral | None = None


class ThreadItemEntry(WireModel):
    """One item with the turn it belongs to."""

    turn_id: str
    item: ThreadItem
    started_at_ms: int | None = None
    completed_at_ms: int | None = None


class ThreadItemsListResponse(WireModel):
    """`thread/items/list` result."""

    data: list[ThreadItemEntry]
    next_cursor: str | None = None
    backwards_cursor: str | None = None


class ThreadLoadedListParams(WireModel):
    """`thread/loaded/list` params."""

    cursor: str | None = None
    limit: int | None = None


class ThreadLoadedListResponse(WireModel):
    """`thread/loaded/list` result: ids of loaded threads."""

    data: list[str]
    next_cursor: str | None = None
