"""ThreadStore on one SQLite file (aiosqlite, WAL, versioned migrations, FTS5 search)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, cast

import aiosqlite

from tether_server.store import sqlite_queries as q
from tether_server.store.base import (
    Batch,
    EventRecord,
    ItemRecord,
    LoadedThread,
    Page,
    ReadState,
    SortDirection,
    StoreError,
    ThreadQuery,
    ThreadRecord,
    TurnRecord,
)
from tether_server.store.cursors import (
    Position,
    clamp_limit,
    decode_cursor,
    item_position,
    make_page,
    thread_position,
    thread_scope,
    turn_position,
)
from tether_server.store.search_index import MARK, CatchUp, index_marked_sync
from tether_server.store.search_text import normalise_term
from tether_server.store.sqlite_desktop import SqliteDesktop
from tether_server.store.sqlite_goals import SqliteGoals
from tether_server.store.sqlite_open import connect, describe_error, hold_wal_open, immediate_transaction
from tether_server.store.sqlite_open import fetch_all as _fetch
from tether_server.store.sqlite_rows import (
    ITEM_COLUMNS,
    TURN_COLUMNS,
    Row,
    event_from_row,
    event_params,
    history_from_row,
    history_params,
    item_from_row,
    item_params,
    thread_from_row,
    thread_params,
    turn_from_row,
    turn_params,
)
from tether_server.store.sqlite_sections import SqliteSections
from tether_server.store.sqlite_transcript import SqliteTranscript


class SqliteThreadStore(SqliteGoals, SqliteSections, SqliteDesktop, SqliteTranscript):
    """The durable ThreadStore: one database file, every `commit` one transaction.

    One connection serves the store; a lock keeps each transaction and each read whole, so a
    read never sees half of a batch being written.
    """

    def __init__(
        self,
        path: Path,
        *,
        busy_timeout_ms: int = 5000,
        search_probe_window: int = 1000,
        search_match_cap: int = 10_000,
    ) -> None:
        """Create a store for `path` (opened by `open()`).

        Args:
            path: the database file; created with its parent directory when missing.
            busy_timeout_ms: how long to wait for another process's lock before failing.
            search_probe_window: an ASCII search first scans this many listed threads in page
                order (fast when the term is common), then asks the full-text index (fast when
                it is rare); 0 always asks the index.
            search_match_cap: an index search with fewer matching texts than this looks the
                matching threads up and sorts them; with more it walks the listed threads in page
                order, testing each (cheaper once most threads match).
        """
        self.path = path
        self._busy_timeout_ms = busy_timeout_ms
        self._probe_window = search_probe_window
        self._match_cap = search_match_cap
        self._conn: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()
        self._catch_up = CatchUp(self._index_marked)

    async def open(self) -> None:
        """Open and migrate the database; StoreError names the file when it is unusable."""
        if self._conn is None:
            self._conn = await connect(self.path, self._busy_timeout_ms)
            await self._catch_up.try_now()  # what a crash left unindexed

    async def close(self, *, checkpoint: bool = True) -> None:
        """Index what is marked, then close the connection (idempotent); without `checkpoint`
        (the process ends right after) the WAL is left for the next open (`hold_wal_open`)."""
        if self._conn is not None:
            await self._catch_up.settle()
        conn, self._conn = self._conn, None
        if conn is not None:
            async with self._lock:
                if not checkpoint:
                    hold_wal_open(self.path)
                await conn.close()

    async def commit(self, batch: Batch) -> None:
        """Apply `batch` atomically; StoreError when it breaks a constraint (nothing is written)."""
        conn = self._require()
        async with self._lock:
            try:
                # The whole transaction in ONE hop to the database thread: a commit is on every
                # turn's hot path, and each aiosqlite round trip costs an event-loop wake-up.
                # aiosqlite's own hook for running a callable on its thread (untyped upstream).
                on_db_thread = cast("Callable[..., Awaitable[None]]", conn._execute)
                await on_db_thread(_commit_sync, conn._conn, batch)
            except sqlite3.IntegrityError as exc:
                raise StoreError(f"commit rejected by {self.path}: {exc}") from exc
            except sqlite3.Error as exc:
                raise StoreError(describe_error(self.path, exc)) from exc
        if batch.items:
            self._catch_up.after_commit()

    async def _index_marked(self) -> None:
        conn = self._require()
        async with self._lock:
            try:
                on_db_thread = cast("Callable[..., Awaitable[int]]", conn._execute)
                await on_db_thread(index_marked_sync, conn._conn)
            except sqlite3.Error as exc:
                raise StoreError(describe_error(self.path, exc)) from exc

    async def get_thread(self, thread_id: str) -> ThreadRecord | None:
        rows = await self._fetch(q.SELECT_THREAD, (thread_id,))
        return thread_from_row(rows[0]) if rows else None

    async def load_thread(self, thread_id: str) -> LoadedThread | None:
        async with self._read() as conn:
            rows = await _fetch(conn, q.SELECT_THREAD, (thread_id,))
            if not rows:
                return None
            return LoadedThread(
                record=thread_from_row(rows[0]),
                turns=[turn_from_row(r) for r in await _fetch(conn, q.SELECT_TURNS, (thread_id,))],
                items=[item_from_row(r) for r in await _fetch(conn, q.SELECT_ITEMS, (thread_id,))],
                history=[history_from_row(r) for r in await _fetch(conn, q.SELECT_HISTORY, (thread_id,))],
            )

    async def list_threads(self, query: ThreadQuery) -> Page[ThreadRecord]:
        """One page of listed threads; raises InvalidCursor for a foreign cursor."""
        scope = thread_scope(query.sort_key)
        after = decode_cursor(query.cursor, scope) if query.cursor else None
        limit = clamp_limit(query.limit)
        rows = await self._thread_rows(query, after, normalise_term(query.search_term), limit + 1)
        records = [thread_from_row(r) for r in rows]
        position = thread_position(query.sort_key)
        return make_page(records, limit=limit, scope=scope, cursor=query.cursor, position_of=position)

    async def _thread_rows(
        self, query: ThreadQuery, after: Position | None, term: str | None, fetch: int
    ) -> list[Row]:
        if term is not None:
            await self._catch_up.before_search()
        async with self._read() as conn:
            window = self._probe_window
            if term is not None and term.isascii() and window > 0:
                rows = await _fetch(conn, *q.probe_threads_sql(query, after, term, fetch, window))
                if len(rows) >= fetch:
                    return rows
                seen = await _fetch(conn, *q.window_size_sql(query, after, window))
                if seen[0][0] < window:
                    return rows
            if term is not None and await self._few_matches(conn, term):
                return await _fetch(conn, *q.matched_threads_sql(query, after, term, fetch))
            return await _fetch(conn, *q.list_threads_sql(query, after, term, fetch))

    async def _few_matches(self, conn: aiosqlite.Connection, term: str) -> bool:
        """Whether the full-text index matches fewer texts than the cap (False: not an index search)."""
        counting = q.count_matches_sql(term, self._match_cap)
        return counting is not None and (await _fetch(conn, *counting))[0][0] < self._match_cap

    async def list_turns(
        self, thread_id: str, *, cursor: str | None, limit: int, direction: SortDirection
    ) -> Page[TurnRecord]:
        """A page of the thread's turns by ordinal; raises InvalidCursor for a foreign cursor."""
        scope = f"turns:{thread_id}"
        after = decode_cursor(cursor, scope) if cursor else None
        limit = clamp_limit(limit)
        sql, params = q.ordinal_page_sql(
            "turns", TURN_COLUMNS, "turn_id", {"thread_id": thread_id}, after, direction == "desc"
        )
        turns = [turn_from_row(r) for r in await self._fetch(sql, [*params, limit + 1])]
        return make_page(turns, limit=limit, scope=scope, cursor=cursor, position_of=turn_position)

    async def list_items(
        self,
        thread_id: str,
        *,
        turn_id: str | None,
        cursor: str | None,
        limit: int,
        direction: SortDirection,
    ) -> Page[ItemRecord]:
        """A page of the thread's items (or one turn's) by ordinal; InvalidCursor when foreign."""
        scope = f"items:{thread_id}"
        after = decode_cursor(cursor, scope) if cursor else None
        limit = clamp_limit(limit)
        filters = {"thread_id": thread_id} | ({"turn_id": turn_id} if turn_id is not None else {})
        desc = direction == "desc"
        sql, params = q.ordinal_page_sql("items", ITEM_COLUMNS, "item_id", filters, after, desc)
        items = [item_from_row(r) for r in await self._fetch(sql, [*params, limit + 1])]
        return make_page(items, limit=limit, scope=scope, cursor=cursor, position_of=item_position)

    async def read_events(self, thread_id: str, after_seq: int, limit: int = 10_000) -> list[EventRecord]:
        rows = await self._fetch(q.SELECT_EVENTS, (thread_id, after_seq, max(0, limit)))
        return [event_from_row(r) for r in rows]

    async def last_event(self, thread_id: str, method: str) -> EventRecord | None:
        rows = await self._fetch(q.SELECT_LAST_EVENT, (thread_id, method))
        return event_from_row(rows[0]) if rows else None

    async def set_archived(self, thread_id: str, archived: bool, at: int) -> bool:
        """Set the archived flag (and updated_at); False when the thread does not exist."""
        async with self._transaction() as conn:
            sql = "UPDATE threads SET archived = ?, updated_at = ? WHERE id = ?"
            async with conn.execute(sql, (int(archived), at, thread_id)) as cur:
                return cur.rowcount > 0

    async def set_name(self, thread_id: str, name: str | None, at: int) -> bool:
        """Set or clear the name (and updated_at); False when the thread does not exist."""
        async with self._transaction() as conn:
            sql = "UPDATE threads SET name = ?, updated_at = ? WHERE id = ?"
            async with conn.execute(sql, (name, at, thread_id)) as cur:
                found = cur.rowcount > 0
            if found:
                await _sync_doc(conn, thread_id, "name", None, name or "")
            return found

    async def delete_thread(self, thread_id: str) -> bool:
        """Delete the thread and, by cascade, its turns, items, history, events and search text."""
        async with (
            self._transaction() as conn,
            conn.execute("DELETE FROM threads WHERE id = ?", (thread_id,)) as cur,
        ):
            return cur.rowcount > 0

    async def truncate_before_turn(self, thread_id: str, turn_id: str) -> bool:
        """Drop the turn and everything after it; False when the thread has no such turn."""
        async with self._transaction() as conn:
            sql = "SELECT ordinal FROM turns WHERE thread_id = ? AND turn_id = ?"
            rows = await _fetch(conn, sql, (thread_id, turn_id))
            if not rows:
                return False
            for statement in q.TRUNCATE:
                await conn.execute(statement, {"t": thread_id, "o": rows[0][0]})
            return True

    async def interrupt_in_progress(self, now: int) -> list[tuple[str, str]]:
        """Close turns a crash left `inProgress` as `interrupted` at `now`; (thread, turn) pairs."""
        sql = (
            "UPDATE turns SET status = 'interrupted', completed_at = ? "
            "WHERE status = 'inProgress' RETURNING thread_id, turn_id, ordinal"
        )
        async with self._transaction() as conn:
            rows = await _fetch(conn, sql, (now,))
        return [(r[0], r[1]) for r in sorted(rows, key=lambda r: (r[0], r[2], r[1]))]

    async def read_states(self, thread_ids: Sequence[str]) -> dict[str, ReadState]:
        """Stored markers, and the initial state for existing threads never marked."""
        if not thread_ids:
            return {}
        marks = ",".join("?" * len(thread_ids))
        sql = (
            f"SELECT t.id, r.first_unread, r.revision FROM threads AS t "
            f"LEFT JOIN read_states AS r ON r.thread_id = t.id WHERE t.id IN ({marks})"
        )
        rows = await self._fetch(sql, list(thread_ids))
        return {row[0]: _read_state(row[1], row[2]) for row in rows}

    async def set_read_state(
        self, thread_id: str, first_unread: dict[str, Any] | None, *, expected: str, revision: str
    ) -> ReadState | None:
        """Compare-and-set the marker in one write transaction."""
        async with self._transaction() as conn:
            sql = (
                "SELECT r.first_unread, r.revision FROM threads AS t "
                "LEFT JOIN read_states AS r ON r.thread_id = t.id WHERE t.id = ?"
            )
            rows = await _fetch(conn, sql, (thread_id,))
            if not rows:
                return None
            current = _read_state(rows[0][0], rows[0][1])
            if current.revision != expected:
                return current
            stored = json.dumps(first_unread) if first_unread is not None else None
            await conn.execute(
                "INSERT INTO read_states (thread_id, first_unread, revision) VALUES (?, ?, ?) "
                "ON CONFLICT (thread_id) DO UPDATE SET first_unread = excluded.first_unread, "
                "revision = excluded.revision",
                (thread_id, stored, revision),
            )
            return ReadState(first_unread, revision)

    def _require(self) -> aiosqlite.Connection:
        if self._conn is None:
            raise StoreError(f"database {self.path} is not open")
        return self._conn

    @contextlib.asynccontextmanager
    async def _read(self) -> AsyncIterator[aiosqlite.Connection]:
        conn = self._require()
        async with self._lock:
            try:
                yield conn
            except sqlite3.Error as exc:
                raise StoreError(describe_error(self.path, exc)) from exc

    @contextlib.asynccontextmanager
    async def _transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction; a constraint violation or I/O failure becomes StoreError."""
        conn = self._require()
        async with self._lock:
            try:
                await conn.execute("BEGIN IMMEDIATE")
                yield conn
                await conn.execute("COMMIT")
            except BaseException as exc:
                # Statements run in order on the connection's thread, so this ROLLBACK follows
                # whatever was in flight; it fails harmlessly when no transaction is open.
                with contextlib.suppress(sqlite3.OperationalError):
                    await conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.IntegrityError):
                    raise StoreError(f"commit rejected by {self.path}: {exc}") from exc
                if isinstance(exc, sqlite3.Error):
                    raise StoreError(describe_error(self.path, exc)) from exc
                raise

    async def _fetch(self, sql: str, params: Iterable[Any]) -> list[Row]:
        async with self._read() as conn:
            return await _fetch(conn, sql, params)


def _read_state(first_unread: str | None, revision: str | None) -> ReadState:
    if revision is None:
        return ReadState()
    return ReadState(json.loads(first_unread) if first_unread else None, revision)


async def _sync_doc(
    conn: aiosqlite.Connection, thread_id: str, key: str, item_id: str | None, text: str
) -> None:
    if text:
        await conn.execute(q.UPSERT_DOC, (thread_id, key, item_id, text))
    else:
        await conn.execute(q.DELETE_DOC, (thread_id, key))


def _commit_sync(db: sqlite3.Connection, batch: Batch) -> None:
    """Write a batch on the database thread, in one transaction (rolled back on error)."""
    with immediate_transaction(db):
        _write_batch_sync(db, batch)


def _sync_doc_sync(db: sqlite3.Connection, thread_id: str, key: str, item_id: str | None, text: str) -> None:
    if text:
        db.execute(q.UPSERT_DOC, (thread_id, key, item_id, text))
    else:
        db.execute(q.DELETE_DOC, (thread_id, key))


def _write_batch_sync(db: sqlite3.Connection, batch: Batch) -> None:
    if batch.thread is not None:
        record = batch.thread
        db.execute(q.UPSERT_THREAD, thread_params(record))
        _sync_doc_sync(db, record.id, "name", None, record.name or "")
        _sync_doc_sync(db, record.id, "preview", None, record.preview)
    if batch.turns:
        db.executemany(q.UPSERT_TURN, [turn_params(t) for t in batch.turns])
    if batch.items:
        db.executemany(q.UPSERT_ITEM, [item_params(i) for i in batch.items])
        db.executemany(MARK, [(i.thread_id, i.item_id) for i in batch.items])  # indexed just after
    if batch.history:
        db.executemany(q.INSERT_HISTORY, [history_params(h) for h in batch.history])
    if batch.events:
        db.executemany(q.INSERT_EVENT, [event_params(e) for e in batch.events])
        last: dict[str, int] = {}
        for event in batch.events:
            last[event.thread_id] = max(last.get(event.thread_id, 0), event.seq)
        db.executemany(q.BUMP_LAST_SEQ, [(seq, tid) for tid, seq in last.items()])
