"""SQL text for the PostgreSQL store: batch writes, the `thread/list` keyset query and revert.

The same statements as the SQLite store's where the dialects agree; search is `ILIKE` over
`search_docs`, which the pg_trgm GIN index answers for terms of three characters or more.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tether_server.store import sources
from tether_server.store.base import ThreadQuery
from tether_server.store.cursors import Position
from tether_server.store.sqlite_rows import (
    EVENT_COLUMNS,
    HISTORY_COLUMNS,
    ITEM_COLUMNS,
    THREAD_COLUMNS,
    TURN_COLUMNS,
)

_SORT_COLUMNS = {"created_at": "created_at", "updated_at": "updated_at", "recency_at": "recency_at"}


def _marks(n: int) -> str:
    return ", ".join(["%s"] * n)


def _updates(columns: str, keep: int) -> str:
    names = [c.strip() for c in columns.split(",")][keep:]
    return ", ".join(f"{n} = excluded.{n}" for n in names)


UPSERT_THREAD = (
    f"INSERT INTO threads ({THREAD_COLUMNS}) VALUES ({_marks(17)}) ON CONFLICT (id) DO UPDATE SET "
    + _updates(THREAD_COLUMNS, 1).replace(
        "last_seq = excluded.last_seq", "last_seq = GREATEST(threads.last_seq, excluded.last_seq)"
    )
)
UPSERT_TURN = (
    f"INSERT INTO turns ({TURN_COLUMNS}) VALUES ({_marks(8)}) "
    f"ON CONFLICT (thread_id, turn_id) DO UPDATE SET {_updates(TURN_COLUMNS, 2)}"
)
# An item never moves between turns (as in the SQLite store).
UPSERT_ITEM = (
    f"INSERT INTO items ({ITEM_COLUMNS}) VALUES ({_marks(7)}) "
    f"ON CONFLICT (thread_id, item_id) DO UPDATE SET {_updates(ITEM_COLUMNS, 3)} "
    "WHERE items.turn_id = excluded.turn_id"
)
INSERT_HISTORY = f"INSERT INTO history ({HISTORY_COLUMNS}) VALUES ({_marks(4)})"
INSERT_EVENT = f"INSERT INTO events ({EVENT_COLUMNS}) VALUES ({_marks(5)})"
BUMP_LAST_SEQ = "UPDATE threads SET last_seq = GREATEST(last_seq, %s) WHERE id = %s"
UPSERT_DOC = (
    "INSERT INTO search_docs (thread_id, key, item_id, text) VALUES (%s, %s, %s, %s) "
    "ON CONFLICT (thread_id, key) DO UPDATE SET text = excluded.text "
    "WHERE search_docs.text <> excluded.text"
)
DELETE_DOC = "DELETE FROM search_docs WHERE thread_id = %s AND key = %s"
# An item's text is indexed as the item is stored: not when its id was already taken by another
# turn's item (the upsert above then changed nothing).
UPSERT_ITEM_DOC = (
    "INSERT INTO search_docs (thread_id, key, item_id, text) SELECT %s, %s, %s, %s "
    "WHERE EXISTS (SELECT 1 FROM items WHERE thread_id = %s AND item_id = %s AND turn_id = %s) "
    "ON CONFLICT (thread_id, key) DO UPDATE SET text = excluded.text "
    "WHERE search_docs.text <> excluded.text"
)
DELETE_ITEM_DOC = (
    "DELETE FROM search_docs WHERE thread_id = %s AND key = %s AND EXISTS "
    "(SELECT 1 FROM items WHERE thread_id = %s AND item_id = %s AND turn_id = %s)"
)

SELECT_THREAD = f"SELECT {THREAD_COLUMNS} FROM threads WHERE id = %s"
SELECT_TURNS = f"SELECT {TURN_COLUMNS} FROM turns WHERE thread_id = %s ORDER BY ordinal, turn_id"
SELECT_ITEMS = f"SELECT {ITEM_COLUMNS} FROM items WHERE thread_id = %s ORDER BY ordinal, item_id"
SELECT_HISTORY = f"SELECT {HISTORY_COLUMNS} FROM history WHERE thread_id = %s ORDER BY ordinal"
SELECT_EVENTS = f"SELECT {EVENT_COLUMNS} FROM events WHERE thread_id = %s AND seq > %s ORDER BY seq LIMIT %s"
SELECT_LAST_EVENT = (
    f"SELECT {EVENT_COLUMNS} FROM events WHERE thread_id = %s AND method = %s ORDER BY seq DESC LIMIT 1"
)
COUNTS = (
    "SELECT (SELECT COUNT(*) FROM turns WHERE thread_id = %(t)s), "
    "(SELECT COUNT(*) FROM items WHERE thread_id = %(t)s)"
)
HISTORY_ITEMS = "SELECT item FROM history WHERE thread_id = %s ORDER BY ordinal"
ITEM_TEXTS = "SELECT turn_id, item FROM items WHERE thread_id = %s ORDER BY ordinal, item_id"

# Revert: the turn at ordinal %(o)s and every later turn go, with their items and history and
# anything recorded after the first of those. Events stay: they were sent.
_DROPPED_TURNS = "SELECT turn_id FROM turns WHERE thread_id = %(t)s AND ordinal >= %(o)s"
TRUNCATE = (
    f"""DELETE FROM items WHERE thread_id = %(t)s AND (turn_id IN ({_DROPPED_TURNS})
        OR ordinal >= (SELECT min(ordinal) FROM items WHERE thread_id = %(t)s
                       AND turn_id IN ({_DROPPED_TURNS})))""",
    f"""DELETE FROM history WHERE thread_id = %(t)s AND (turn_id IN ({_DROPPED_TURNS})
        OR ordinal >= (SELECT min(ordinal) FROM history WHERE thread_id = %(t)s
                       AND turn_id IN ({_DROPPED_TURNS})))""",
    "DELETE FROM turns WHERE thread_id = %(t)s AND ordinal >= %(o)s",
)


def like_pattern(term: str) -> str:
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _sources_clause(kinds: Sequence[str] | None) -> tuple[str, list[Any]]:
    """`sources.listed` as a condition on `source`."""
    spawned = "starts_with(source, %s)"
    if not kinds:
        return f"NOT {spawned}", [sources.SPAWNED_PREFIX]
    clause = "source = ANY(%s)"
    if sources.SPAWNED_KINDS.intersection(kinds):
        return f"({clause} OR {spawned})", [list(kinds), sources.SPAWNED_PREFIX]
    return clause, [list(kinds)]


def list_threads_sql(
    query: ThreadQuery, after: Position | None, term: str | None, fetch: int
) -> tuple[str, list[Any]]:
    """The keyset query for one `thread/list` page: rows strictly after `after`, `fetch` of them."""
    column = _SORT_COLUMNS[query.sort_key]
    desc = query.sort_direction == "desc"
    where = ["preview <> ''", "archived = %s"]
    params: list[Any] = [int(query.archived)]
    if query.cwds:
        where.append("cwd = ANY(%s)")
        params.append(list(query.cwds))
    if query.model_providers:
        where.append("model_provider = ANY(%s)")
        params.append(list(query.model_providers))
    clause, values = _sources_clause(query.sources)
    where.append(clause)
    params.extend(values)
    if query.exclude_ids:
        where.append("NOT (id = ANY(%s))")
        params.append(list(query.exclude_ids))
    if after is not None:
        where.append(f"({column}, id) {'<' if desc else '>'} (%s, %s)")
        params.extend((after.k, after.id))
    if term is not None:
        where.append("id IN (SELECT thread_id FROM search_docs WHERE text ILIKE %s ESCAPE '\\')")
        params.append(like_pattern(term))
    order = "DESC" if desc else "ASC"
    sql = (
        f"SELECT {THREAD_COLUMNS} FROM threads WHERE {' AND '.join(where)} "
        f"ORDER BY {column} {order}, id {order} LIMIT %s"
    )
    return sql, [*params, fetch]


def ordinal_page_sql(
    table: str, columns: str, id_column: str, filters: dict[str, str], after: Position | None, desc: bool
) -> tuple[str, list[Any]]:
    """Keyset query over a thread's turns or items by (ordinal, id); `filters` are equalities."""
    where = [f"{name} = %s" for name in filters]
    params: list[Any] = list(filters.values())
    if after is not None:
        where.append(f"(ordinal, {id_column}) {'<' if desc else '>'} (%s, %s)")
        params.extend((after.k, after.id))
    order = "DESC" if desc else "ASC"
    sql = (
        f"SELECT {columns} FROM {table} WHERE {' AND '.join(where)} "
        f"ORDER BY ordinal {order}, {id_column} {order} LIMIT %s"
    )
    return sql, params
