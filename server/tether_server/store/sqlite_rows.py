"""Column lists and row <-> record conversion for the SQLite store (JSON columns via orjson)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from tether_server.store.base import EventRecord, HistoryRecord, ItemRecord, ThreadRecord, TurnRecord

Row = Sequence[Any]

THREAD_COLUMNS = (
    "id, created_at, updated_at, recency_at, cwd, model, model_provider, source, cli_version, "
    "originator, name, preview, archived, forked_from_id, git_info, settings, last_seq"
)
TURN_COLUMNS = "thread_id, turn_id, ordinal, status, error, started_at, completed_at, duration_ms"
ITEM_COLUMNS = "thread_id, turn_id, item_id, ordinal, item, started_at_ms, completed_at_ms"
HISTORY_COLUMNS = "thread_id, turn_id, ordinal, item"
EVENT_COLUMNS = "thread_id, seq, method, params, emitted_at_ms"


def dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


def _loads_opt(text: str | None) -> Any:
    return None if text is None else orjson.loads(text)


def thread_params(r: ThreadRecord) -> tuple[Any, ...]:
    git_info = None if r.git_info is None else dumps(r.git_info)
    return (
        r.id, r.created_at, r.updated_at, r.recency_at, r.cwd, r.model, r.model_provider, r.source,
        r.cli_version, r.originator, r.name, r.preview, int(r.archived), r.forked_from_id, git_info,
        dumps(r.settings), r.last_seq,
    )  # fmt: skip


def thread_from_row(row: Row) -> ThreadRecord:
    return ThreadRecord(
        id=row[0], created_at=row[1], updated_at=row[2], recency_at=row[3], cwd=row[4], model=row[5],
        model_provider=row[6], source=row[7], cli_version=row[8], originator=row[9], name=row[10],
        preview=row[11], archived=bool(row[12]), forked_from_id=row[13], git_info=_loads_opt(row[14]),
        settings=orjson.loads(row[15]), last_seq=row[16],
    )  # fmt: skip


def turn_params(r: TurnRecord) -> tuple[Any, ...]:
    error = None if r.error is None else dumps(r.error)
    return (r.thread_id, r.turn_id, r.ordinal, r.status, error, r.started_at, r.completed_at, r.duration_ms)


def turn_from_row(row: Row) -> TurnRecord:
    return TurnRecord(
        thread_id=row[0], turn_id=row[1], ordinal=row[2], status=row[3], error=_loads_opt(row[4]),
        started_at=row[5], completed_at=row[6], duration_ms=row[7],
    )  # fmt: skip


def item_params(r: ItemRecord) -> tuple[Any, ...]:
    return (r.thread_id, r.turn_id, r.item_id, r.ordinal, dumps(r.item), r.started_at_ms, r.completed_at_ms)


def item_from_row(row: Row) -> ItemRecord:
    return ItemRecord(
        thread_id=row[0], turn_id=row[1], item_id=row[2], ordinal=row[3], item=orjson.loads(row[4]),
        started_at_ms=row[5], completed_at_ms=row[6],
    )  # fmt: skip


def history_params(r: HistoryRecord) -> tuple[Any, ...]:
    return (r.thread_id, r.turn_id, r.ordinal, dumps(r.item))


def history_from_row(row: Row) -> HistoryRecord:
    return HistoryRecord(thread_id=row[0], turn_id=row[1], ordinal=row[2], item=orjson.loads(row[3]))


def event_params(r: EventRecord) -> tuple[Any, ...]:
    return (r.thread_id, r.seq, r.method, dumps(r.params), r.emitted_at_ms)


def event_from_row(row: Row) -> EventRecord:
    return EventRecord(
        thread_id=row[0], seq=row[1], method=row[2], params=orjson.loads(row[3]), emitted_at_ms=row[4]
    )
