"""Experimental reads of a thread's stored history: `thread/items/read`, `thread/searchOccurrences`,
`thread/timeline/list`; and `turn/settings/update` (settings of the running turn)."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from tether_protocol.common import JsonValue, WireModel
from tether_protocol.v2.thread_history import ThreadItemEntry


class ThreadItemsReadParams(WireModel):
    """`thread/items/read` params: 1 to 100 item ids of one turn."""

    thread_id: str
    turn_id: str
    item_ids: list[str]


class ThreadItemsReadResponse(WireModel):
    """The stored items among those asked for, in stored order."""

    data: list[ThreadItemEntry]


class ThreadSearchOccurrencesParams(WireModel):
    """`thread/searchOccurrences` params."""

    thread_id: str
    search_term: str
    cursor: str | None = None
    limit: int | None = None


class ThreadSearchTextRange(WireModel):
    """A match within the snippet, in UTF-16 code units."""

    start: int
    end: int


class ThreadSearchOccurrence(WireModel):
    """One match in a user message or an agent answer."""

    turn_id: str
    item_id: str
    snippet: str
    snippet_match_range: ThreadSearchTextRange
    turn_cursor: str


class ThreadSearchOccurrencesResponse(WireModel):
    """`thread/searchOccurrences` result, in message order."""

    data: list[ThreadSearchOccurrence]
    next_cursor: str | None = None


class ThreadTimelineListParams(WireModel):
    """`thread/timeline/list` params."""

    thread_id: str
    cursor: str | None = None
    limit: int | None = None


class ThreadTimelineListResponse(WireModel):
    """A page of turn boundaries and items in stored order (entries as `ThreadTimelineEntry`)."""

    data: list[dict[str, JsonValue]] = Field(default_factory=list)
    next_cursor: str | None = None
    active_realtime_session_at_page_start: str | None = None


TurnSettingsUpdateStatus = Literal["applied", "targetUnavailable"]


class TurnSettingsUpdateParams(WireModel):
    """`turn/settings/update` params; unknown fields are kept to be refused as Codex refuses them."""

    model_config = ConfigDict(extra="allow")

    thread_id: str
    turn_id: str
    approvals_reviewer: str | None = None
    environments: list[dict[str, JsonValue]] | None = None
    model: str | None = None
    effort: str | None = None
    summary: str | None = None
    service_tier: str | None = None


class TurnSettingsUpdateResponse(WireModel):
    """`turn/settings/update` result."""

    status: TurnSettingsUpdateStatus
