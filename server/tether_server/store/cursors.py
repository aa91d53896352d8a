"""Opaque keyset cursors and the page assembly shared by every ThreadStore implementation.

A cursor names a *position* in an ordering: the sort value `k` and the row id `id` of one row,
plus the scope `s` it belongs to (a sort key, or a thread's turns/items). A request returns the
rows strictly after that position in the requested direction, so the same cursor pages forward
with one direction and backward with the other. Encoding: URL-safe base64 of compact JSON.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import orjson

from tether_server.store.base import InvalidCursor, ItemRecord, Page, SortKey, ThreadRecord, TurnRecord

T = TypeVar("T")


@dataclass(frozen=True)
class Position:
    """One row's place in an ordering: its sort value, then its id as the tie-breaker."""

    k: int
    id: str


def encode_cursor(scope: str, position: Position) -> str:
    """Return the opaque cursor for `position` within `scope`."""
    raw = orjson.dumps({"s": scope, "k": position.k, "id": position.id})
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode_cursor(cursor: str, scope: str) -> Position:
    """Parse a cursor produced by `encode_cursor` for the same scope.

    Raises:
        InvalidCursor: the text is not such a cursor, or it belongs to another scope.
    """
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        data = orjson.loads(base64.b64decode(padded, altchars=b"-_", validate=True))
    except (binascii.Error, ValueError, UnicodeEncodeError) as exc:
        raise InvalidCursor(f"invalid cursor: {cursor}") from exc
    if not isinstance(data, dict) or data.get("s") != scope:
        raise InvalidCursor(f"invalid cursor: {cursor}")
    k, row_id = data.get("k"), data.get("id")
    if not isinstance(k, int) or isinstance(k, bool) or not isinstance(row_id, str):
        raise InvalidCursor(f"invalid cursor: {cursor}")
    return Position(k, row_id)


def make_page(
    rows: list[T], *, limit: int, scope: str, cursor: str | None, position_of: Callable[[T], Position]
) -> Page[T]:
    """Build a page from up to `limit + 1` rows fetched after the request's position.

    `next_cursor` continues in the same direction and is None on the last page.
    `backwards_cursor` sits at the first row: passed with the opposite direction it returns the
    rows before this page (nearest first). On an empty page it is the request's own cursor.
    """
    data = rows[:limit]
    more = len(rows) > limit
    next_cursor = encode_cursor(scope, position_of(data[-1])) if more and data else None
    backwards = encode_cursor(scope, position_of(data[0])) if data else cursor
    return Page(data=data, next_cursor=next_cursor, backwards_cursor=backwards)


def clamp_limit(limit: int) -> int:
    """Page sizes below 1 still return one row, so paging always makes progress."""
    return max(1, limit)


def thread_scope(sort_key: str) -> str:
    """Thread cursors are positions in one sort key's ordering and are refused by the others."""
    return f"threads:{sort_key}"


def thread_position(sort_key: SortKey) -> Callable[[ThreadRecord], Position]:
    """How a thread's position is read for `sort_key`."""

    def position(record: ThreadRecord) -> Position:
        return Position(int(getattr(record, sort_key)), record.id)

    return position


def turn_position(turn: TurnRecord) -> Position:
    return Position(turn.ordinal, turn.turn_id)


def item_position(item: ItemRecord) -> Position:
    return Position(item.ordinal, item.item_id)


_PAST_ANY_ID = "\uffff"
"""Sorts after every row id (uuids and other ASCII), in Python and in SQLite's byte order."""


def anchor_cursor(cursor: str, toward: str) -> str:
    """`cursor` (a position at one row of an ordinal ordering: turns or items) moved so that a page
    read `toward` ("asc" or "desc") from it starts with that row instead of after it.

    Codex's backwards cursors include their anchor row; the store's positions exclude it. Ordinals
    are whole numbers, so the position just past the row's ordinal (or just before it) holds it.

    Raises:
        InvalidCursor: `cursor` is not a cursor.
    """
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        data = orjson.loads(base64.b64decode(padded, altchars=b"-_", validate=True))
    except (binascii.Error, ValueError, UnicodeEncodeError) as exc:
        raise InvalidCursor(f"invalid cursor: {cursor}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("s"), str) or not isinstance(data.get("k"), int):
        raise InvalidCursor(f"invalid cursor: {cursor}")
    k: int = data["k"]
    moved = Position(k + 1, "") if toward == "desc" else Position(k - 1, _PAST_ANY_ID)
    return encode_cursor(data["s"], moved)
