"""A thread's turns in wire form straight from the store, for `thread/resume` and `thread/read`.

The items are sent as the store holds them: wire JSON written from validated items, spliced in as
`orjson.Fragment`s. Parsing, validating and dumping them again cost about 150 µs a turn, and the
objects it made kept the cyclic collector busy: 1.5 s and more for a 10,000-turn thread.
`test_stored_turns` checks that this form equals the validated one for every kind of item.
"""

from __future__ import annotations

from typing import Any

import orjson

from tether_protocol.v2.turn import TurnError
from tether_server import heap
from tether_server.store.base import ThreadStore, TurnRecord

_ALL_TURNS = 1_000_000


def _error(error: dict[str, Any] | None) -> dict[str, Any] | None:
    if error is None:
        return None
    # Rare (a failed turn), and its stored form may predate fields added since: dumped anew.
    return TurnError.model_validate(error).model_dump(mode="json", by_alias=True)


def _turn(record: TurnRecord, items: list[orjson.Fragment]) -> dict[str, Any]:
    # The keys and order of `Turn`'s own dump (`items_view` "full": every item is here).
    return {
        "id": record.turn_id,
        "rootTurnId": record.turn_id,
        "items": items,
        "itemsView": "full",
        "status": record.status,
        "error": _error(record.error),
        "startedAt": record.started_at,
        "completedAt": record.completed_at,
        "durationMs": record.duration_ms,
    }


async def stored_turns(store: ThreadStore, thread_id: str) -> list[dict[str, Any]]:
    """Every turn of the thread with all its items, in order, in wire form."""
    with heap.collection_paused():
        page = await store.list_turns(thread_id, cursor=None, limit=_ALL_TURNS, direction="asc")
        by_turn: dict[str, list[orjson.Fragment]] = {}
        for turn_id, text in await store.item_texts(thread_id):
            by_turn.setdefault(turn_id, []).append(orjson.Fragment(text))
        return [_turn(t, by_turn.get(t.turn_id, [])) for t in page.data]
