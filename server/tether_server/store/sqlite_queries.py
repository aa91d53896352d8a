"""SQL text for the SQLite store: batch writes, the `thread/list` keyset query and revert."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tether_server.store import sources
from tether_server.store.base import ThreadQuery
from tether_server.store.cursors import Position
from tether_server.store.sqlite_open import CONTAINS_FUNCTION
from tether_server.store.sqlite_rows import (
    EVENT_COLUMNS,
    HISTORY_COLUMNS,
    ITEM_COLUMNS,
    THREAD_COLUMNS,
    TURN_COLUMNS,
)

_SORT_COLUMNS = {"created_at": "created_at", "updated_at": "updated_at", "recency_at": "recency_at"}
# Below three characters the trigram index cannot answer; those terms scan the docs instead.
_MIN_FTS_TERM = 3


def _marks(n: int) -> str:
    return ", ".join("?" * n)


def _updates(columns: str, keep: int) -> str:
    names = [c.strip() for c in columns.split(",")][keep:]
    return ", ".join(f"{n} = excluded.{n}" for n in names)


UPSERT_THREAD = (
    f"INSERT INTO threads ({THREAD_COLUMNS}) VALUES ({_marks(17)}) ON CONFLICT (id) DO UPDATE SET "
    + _updates(THREAD_COLUMNS, 1).replace(
        "last_seq = excluded.last_seq", "last_seq = max(threads.last_seq, excluded.last_seq)"
    )
)
UPSERT_TURN = (
    f"INSERT INTO turns ({TURN_COLUMNS}) VALUES ({_marks(8)}) "
    f"ON CONFLICT (thread_id, turn_id) DO UPDATE SET {_updates(TURN_COLUMNS, 2)}"
)
# An item never moves between turns: a later turn's item under an id already taken (a model's id
# reused) changes nothing stored.
UPSERT_ITEM = (
    f"INSERT INTO items ({ITEM_COLUMNS}) VALUES ({_marks(7)}) "
    f"ON CONFLICT (thread_id, item_id) DO UPDATE SET {_updates(ITEM_COLUMNS, 3)} "
    "WHERE items.turn_id = excluded.turn_id"
)
INSERT_HISTORY = f"INSERT INTO history ({HISTORY_COLUMNS}) VALUES ({_marks(4)})"
INSERT_EVENT = f"INSERT INTO events ({EVENT_COLUMNS}) VALUES ({_marks(5)})"
BUMP_LAST_SEQ = "UPDATE threads SET last_seq = max(last_seq, ?) WHERE id = ?"
UPSERT_DOC = (
    "INSERT INTO search_docs (thread_id, key, item_id, text) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (thread_id, key) DO UPDATE SET text = excluded.text WHERE text <> excluded.text"
)
DELETE_DOC = "DELETE FROM search_docs WHERE thread_id = ? AND key = ?"

SELECT_THREAD = f"SELECT {THREAD_COLUMNS} FROM threads WHERE id = ?"
SELECT_TURNS = f"SELECT {TURN_COLUMNS} FROM turns WHERE thread_id = ? ORDER BY ordinal, turn_id"
SELECT_ITEMS = f"SELECT {ITEM_COLUMNS} FROM items WHERE thread_id = ? ORDER BY ordinal, item_id"
SELECT_HISTORY = f"SELECT {HISTORY_COLUMNS} FROM history WHERE thread_id = ? ORDER BY ordinal"
SELECT_EVENTS = f"SELECT {EVENT_COLUMNS} FROM events WHERE thread_id = ? AND seq > ? ORDER BY seq LIMIT ?"
SELECT_LAST_EVENT = (
    f"SELECT {EVENT_COLUMNS} FROM events WHERE thread_id = ? AND method = ? ORDER BY seq DESC LIMIT 1"
)

# Revert: the turn at :o and every later turn go, with their items and history and anything
# recorded after the first of those (by ordinal). Events stay: they were sent.
_DROPPED_TURNS = "SELECT turn_id FROM turns WHERE thread_id = :t AND ordinal >= :o"
TRUNCATE = (
    f"""DELETE FROM items WHERE thread_id = :t AND (turn_id IN ({_DROPPED_TURNS})
        OR ordinal >= (SELECT min(ordinal) FROM items WHERE thread_id = :t
                       AND turn_id IN ({_DROPPED_TURNS})))""",
    f"""DELETE FROM history WHERE thread_id = :t AND (turn_id IN ({_DROPPED_TURNS})
        OR ordinal >= (SELECT min(ordinal) FROM history WHERE thread_id = :t
                       AND turn_id IN ({_DROPPED_TURNS})))""",
    "DELETE FROM turns WHERE thread_id = :t AND ordinal >= :o",
)


def _add_in(where: list[str], params: list[Any], column: str, values: Sequence[str] | None) -> None:
    if values:
        where.append(f"{column} IN ({_marks(len(values))})")
        params.extend(values)


def _fts_phrase(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _search_clause(term: str) -> tuple[str, str]:
    if len(term) >= _MIN_FTS_TERM:
        return (
            "id IN (SELECT thread_id FROM search_docs WHERE id IN "
            "(SELECT rowid FROM search_fts WHERE search_fts MATCH ?))",
            _fts_phrase(term),
        )
    if not term.isascii():
        # LIKE folds ASCII case only; below trigram length a Unicode term needs the Python rule.
        return f"id IN (SELECT thread_id FROM search_docs WHERE {CONTAINS_FUNCTION}(text, ?))", term
    return "id IN (SELECT thread_id FROM search_docs WHERE text LIKE ? ESCAPE '\\')", _like_pattern(term)


def _like_pattern(term: str) -> str:
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _listed(query: ThreadQuery, after: Position | None) -> tuple[str, list[Any], str]:
    """WHERE text and parameters for listed threads past `after`, and the ORDER BY text."""
    column = _SORT_COLUMNS[query.sort_key]
    desc = query.sort_direction == "desc"
    where = ["preview <> ''", "archived = ?"]
    params: list[Any] = [int(query.archived)]
    _add_in(where, params, "cwd", query.cwds)
    _add_in(where, params, "model_provider", query.model_providers)
    sources_clause, sources_params = sources.sql_clause(query.sources)
    where.append(sources_clause)
    params.extend(sources_params)
    if query.exclude_ids:
        where.append(f"id NOT IN ({_marks(len(query.exclude_ids))})")
        params.extend(query.exclude_ids)
    if after is not None:
        where.append(f"({column}, id) {'<' if desc else '>'} (?, ?)")
        params.extend((after.k, after.id))
    order = "DESC" if desc else "ASC"
    return " AND ".join(where), params, f"{column} {order}, id {order}"


def list_threads_sql(
    query: ThreadQuery, after: Position | None, term: str | None, fetch: int
) -> tuple[str, list[Any]]:
    """The keyset query for one `thread/list` page: rows strictly after `after`, `fetch` of them."""
    where, params, order = _listed(query, after)
    if term is not None:
        clause, value = _search_clause(term)
        where += f" AND {clause}"
        params.append(value)
    sql = f"SELECT {THREAD_COLUMNS} FROM threads WHERE {where} ORDER BY {order} LIMIT ?"
    return sql, [*params, fetch]


def count_matches_sql(term: str, cap: int) -> tuple[str, list[Any]] | None:
    """How many search texts the full-text index matches, counting up to `cap`; None below trigrams."""
    if len(term) < _MIN_FTS_TERM:
        return None
    sql = "SELECT count(*) FROM (SELECT 1 FROM search_fts WHERE search_fts MATCH ? LIMIT ?)"
    return sql, [_fts_phrase(term), cap]


def matched_threads_sql(
    query: ThreadQuery, after: Position | None, term: str, fetch: int
) -> tuple[str, list[Any]]:
    """The page from the threads the full-text index matches, looked up first and then sorted.

    For a term with few matches. Left to itself SQLite walks the sort index over every listed
    thread, testing each against the matches: a million threads for a page of rare, old matches.
    """
    where, params, order = _listed(query, after)
    sql = (
        f"SELECT {THREAD_COLUMNS} FROM (SELECT DISTINCT thread_id AS match_id FROM search_docs "
        "WHERE id IN (SELECT rowid FROM search_fts WHERE search_fts MATCH ?)) AS m "
        f"CROSS JOIN threads ON id = m.match_id WHERE {where} ORDER BY {order} LIMIT ?"
    )
    return sql, [_fts_phrase(term), *params, fetch]


def probe_threads_sql(
    query: ThreadQuery, after: Position | None, term: str, fetch: int, window: int
) -> tuple[str, list[Any]]:
    """Search only the next `window` listed threads, in page order, by a plain substring scan.

    A common term fills a page from the first few hundred threads this way, where the full-text
    index would first collect every match. Exact for ASCII terms (LIKE folds ASCII case only).
    """
    where, params, order = _listed(query, after)
    sql = (
        f"SELECT {THREAD_COLUMNS} FROM (SELECT {THREAD_COLUMNS} FROM threads WHERE {where} "
        f"ORDER BY {order} LIMIT ?) AS w WHERE EXISTS (SELECT 1 FROM search_docs AS d "
        f"WHERE d.thread_id = w.id AND d.text LIKE ? ESCAPE '\\') ORDER BY {order} LIMIT ?"
    )
    return sql, [*params, window, _like_pattern(term), fetch]


def window_size_sql(query: ThreadQuery, after: Position | None, window: int) -> tuple[str, list[Any]]:
    """How many listed threads a probe of `window` rows saw (fewer than `window`: it saw them all)."""
    where, params, order = _listed(query, after)
    sql = f"SELECT count(*) FROM (SELECT 1 FROM threads WHERE {where} ORDER BY {order} LIMIT ?)"
    return sql, [*params, window]


def ordinal_page_sql(
    table: str, columns: str, id_column: str, filters: dict[str, str], after: Position | None, desc: bool
) -> tuple[str, list[Any]]:
    """Keyset query over a thread's turns or items by (ordinal, id); `filters` are equalities."""
    where = [f"{name} = ?" for name in filters]
    params: list[Any] = list(filters.values())
    if after is not None:
        where.append(f"(ordinal, {id_column}) {'<' if desc else '>'} (?, ?)")
        params.extend((after.k, after.id))
    order = "DESC" if desc else "ASC"
    sql = (
        f"SELECT {columns} FROM {table} WHERE {' AND '.join(where)} "
        f"ORDER BY ordinal {order}, {id_column} {order} LIMIT ?"
    )
    return sql, params
