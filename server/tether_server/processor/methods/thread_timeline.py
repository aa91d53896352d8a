"""`thread/items/read`, `thread/searchOccurrences`, `thread/timeline/list` (reads of a thread's
stored turns and items) and `turn/settings/update`, as Codex 0.169.0 answers them (experimental).

A loaded thread with no stored turn yet has nothing to read: the reads answer empty pages.
"""

from __future__ import annotations

from typing import Any

from tether_protocol.v2 import thread_history as th
from tether_protocol.v2 import thread_timeline as tt
from tether_server.errors import InvalidRequest
from tether_server.processor.state import ServerState
from tether_server.processor.thread_lookup import record_or_fail
from tether_server.processor.uuid_text import check_thread_id
from tether_server.rpc.context import RequestContext
from tether_server.store.base import ItemRecord, TurnRecord
from tether_server.store.cursors import Position, encode_cursor
from tether_server.store.search_text import item_text

MAX_ITEM_IDS = 100
_ALL = 1_000_000
_SNIPPET_CHARS = 80  # context kept on each side of a match in a long message
_TURN_FIELDS = (
    "threadId",
    "turnId",
    "approvalsReviewer",
    "environments",
    "model",
    "effort",
    "summary",
    "serviceTier",
)


async def _known(state: ServerState, thread_id: str) -> None:
    check_thread_id(thread_id)
    await record_or_fail(state, thread_id)


async def _turns(state: ServerState, thread_id: str) -> list[TurnRecord]:
    page = await state.store.list_turns(thread_id, cursor=None, limit=_ALL, direction="asc")
    return list(page.data)


async def _items(state: ServerState, thread_id: str, turn_id: str | None) -> list[ItemRecord]:
    page = await state.store.list_items(thread_id, turn_id=turn_id, cursor=None, limit=_ALL, direction="asc")
    return list(page.data)


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if not cursor.isascii() or not cursor.isdigit():
        raise InvalidRequest(f"invalid cursor: {cursor}")
    return int(cursor)


def _page(rows: list[Any], cursor: str | None, limit: int | None) -> tuple[list[Any], str | None]:
    start = _offset(cursor)
    size = limit if limit else len(rows)
    end = start + max(1, size)
    return rows[start:end], (str(end) if end < len(rows) else None)


async def items_read(
    state: ServerState, ctx: RequestContext, params: tt.ThreadItemsReadParams
) -> tt.ThreadItemsReadResponse:
    """The asked-for items of the turn, in stored order; ids it does not hold are left out."""
    if not 1 <= len(params.item_ids) <= MAX_ITEM_IDS:
        raise InvalidRequest(f"itemIds must contain 1 to {MAX_ITEM_IDS} IDs")
    await _known(state, params.thread_id)
    wanted = set(params.item_ids)
    rows = [r for r in await _items(state, params.thread_id, params.turn_id) if r.item_id in wanted]
    data = [
        th.ThreadItemEntry.model_validate(
            {
                "turn_id": r.turn_id,
                "item": r.item,
                "started_at_ms": r.started_at_ms,
                "completed_at_ms": r.completed_at_ms,
            }
        )
        for r in rows
        if r.turn_id == params.turn_id
    ]
    return tt.ThreadItemsReadResponse(data=data)


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _occurrences(text: str, term: str) -> list[tuple[str, int, int]]:
    """(snippet, start, end) of each case-insensitive match, the range in the snippet's UTF-16 units."""
    folded, needle = text.lower(), term.lower()
    if len(folded) != len(text):  # case folding changed lengths: search the text as written
        folded, needle = text, term
    found, at = [], folded.find(needle)
    while at >= 0:
        begin = 0 if len(text) <= 2 * _SNIPPET_CHARS else max(0, at - _SNIPPET_CHARS)
        end = (
            len(text) if len(text) <= 2 * _SNIPPET_CHARS else min(len(text), at + len(term) + _SNIPPET_CHARS)
        )
        snippet = text[begin:end]
        start = _utf16(text[begin:at])
        found.append((snippet, start, start + _utf16(text[at : at + len(term)])))
        at = folded.find(needle, at + max(1, len(needle)))
    return found


def _turn_cursor(thread_id: str, turn: TurnRecord) -> str:
    # A `thread/turns/list` cursor whose next page (newest first, the default) starts at this turn.
    return encode_cursor(f"turns:{thread_id}", Position(turn.ordinal, "\U0010ffff"))


async def search_occurrences(
    state: ServerState, ctx: RequestContext, params: tt.ThreadSearchOccurrencesParams
) -> tt.ThreadSearchOccurrencesResponse:
    """Each match of the term in user messages and agent answers, in message order."""
    await _known(state, params.thread_id)
    if not params.search_term:
        raise InvalidRequest("thread/searchOccurrences requires a non-empty searchTerm")
    start = _offset(params.cursor)
    turns = {t.turn_id: t for t in await _turns(state, params.thread_id)}
    found: list[tt.ThreadSearchOccurrence] = []
    for row in await _items(state, params.thread_id, None):
        turn = turns.get(row.turn_id)
        if turn is None:
            continue
        for snippet, begin, end in _occurrences(item_text(row.item), params.search_term):
            found.append(
                tt.ThreadSearchOccurrence(
                    turn_id=row.turn_id,
                    item_id=row.item_id,
                    snippet=snippet,
                    snippet_match_range=tt.ThreadSearchTextRange(start=begin, end=end),
                    turn_cursor=_turn_cursor(params.thread_id, turn),
                )
            )
    data, next_cursor = _page(found, str(start), params.limit)
    return tt.ThreadSearchOccurrencesResponse(data=data, next_cursor=next_cursor)


def _boundary(kind: str, turn: TurnRecord) -> dict[str, Any]:
    # Codex 0.169.0 writes `turnId`/`startedAt` where its own schema names `turn_id`/`started_at`:
    # both spellings go out, so that clients of either read them.
    entry: dict[str, Any] = {"type": kind, "turnId": turn.turn_id, "turn_id": turn.turn_id}
    entry["startedAt"] = entry["started_at"] = turn.started_at
    if kind == "turnCompleted":
        entry["status"] = turn.status
        entry["error"] = turn.error
        entry["completedAt"] = entry["completed_at"] = turn.completed_at
        entry["durationMs"] = entry["duration_ms"] = turn.duration_ms
    return entry


async def timeline_list(
    state: ServerState, ctx: RequestContext, params: tt.ThreadTimelineListParams
) -> tt.ThreadTimelineListResponse:
    """Each turn's start, its items, and its end (once it ended), in stored order."""
    await _known(state, params.thread_id)
    by_turn: dict[str, list[ItemRecord]] = {}
    for row in await _items(state, params.thread_id, None):
        by_turn.setdefault(row.turn_id, []).append(row)
    entries: list[dict[str, Any]] = []
    for turn in await _turns(state, params.thread_id):
        entries.append(_boundary("turnStarted", turn))
        entries += [
            {"type": "item", "turnId": turn.turn_id, "item": r.item} for r in by_turn.get(turn.turn_id, [])
        ]
        if turn.status != "inProgress":
            entries.append(_boundary("turnCompleted", turn))
    for position, entry in enumerate(entries):
        entry["position"] = position
    data, next_cursor = _page(entries, params.cursor, params.limit)
    return tt.ThreadTimelineListResponse(data=data, next_cursor=next_cursor)


async def turn_settings_update(
    state: ServerState, ctx: RequestContext, params: tt.TurnSettingsUpdateParams
) -> tt.TurnSettingsUpdateResponse:
    """Refused as Codex refuses it without its `step_model_switching` feature, which Tether lacks."""
    for name in params.model_extra or {}:
        expected = ", ".join(f"`{f}`" for f in _TURN_FIELDS)
        raise InvalidRequest(f"Invalid request: unknown field `{name}`, expected one of {expected}")
    check_thread_id(params.thread_id)
    raise InvalidRequest("turn settings updates require the step_model_switching feature")
