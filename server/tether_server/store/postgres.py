"""ThreadStore on PostgreSQL (psycopg 3, a connection pool, versioned migrations, pg_trgm search).

The same behaviour as `SqliteThreadStore`, which the store test suite checks on both. Every
`commit` is one transaction; a read is one statement or one read-only transaction, so it never
sees half of a batch (MVCC).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Iterable, Sequence
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from tether_server.store import postgres_queries as q
from tether_server.store.base import (
    Batch,
    EventRecord,
    ItemRecord,
    LoadedThread,
    Page,
    ReadState,
    SessionLoad,
    SortDirection,
    StoredHistory,
    StoreError,
    ThreadQuery,
    ThreadRecord,
    TurnRecord,
)
from tether_server.store.cursors import (
    clamp_limit,
    decode_cursor,
    item_position,
    make_page,
    thread_position,
    thread_scope,
    turn_position,
)
from tether_server.store.postgres_desktop import PostgresDesktop
from tether_server.store.postgres_extras import PostgresGoals, PostgresSections
from tether_server.store.postgres_leases import Leases
from tether_server.store.postgres_news import FleetNews
from tether_server.store.postgres_open import describe_error, open_pool, redact
from tether_server.store.search_text import item_text, normalise_term
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

Conn = psycopg.AsyncConnection[tuple[Any, ...]]


class PostgresThreadStore(PostgresGoals, PostgresSections, PostgresDesktop):
    """The durable ThreadStore on a PostgreSQL database named by a `postgresql://` URL."""

    def __init__(self, url: str, *, pool_size: int = 8, connect_timeout_s: float = 10.0) -> None:
        self.url = url
        self._pool_size = pool_size
        self._timeout_s = connect_timeout_s
        self._pool: AsyncConnectionPool | None = None
        self.leases: Leases | None = None  # set when this daemon is a fleet node: commits are fenced

    def own_threads(self, node_id: str, duration_s: float) -> Leases:
        """Make this store a fleet node's: loaded threads are leased, their commits fenced."""
        self.leases = Leases(self._transaction, node_id, duration_s)
        return self.leases

    def fleet_news(self, node_id: str) -> FleetNews:
        """The channel a fleet node's news to every node's clients goes through."""
        return FleetNews(self.url, self._transaction, node_id)

    def __repr__(self) -> str:
        return f"PostgresThreadStore({redact(self.url)!r})"

    async def open(self) -> None:
        """Connect and migrate; StoreError names the database (never its password) when unusable."""
        if self._pool is None:
            self._pool = await open_pool(self.url, self._pool_size, self._timeout_s)

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    async def commit(self, batch: Batch) -> None:
        """Apply `batch` atomically; StoreError when it breaks a constraint (nothing is written)."""
        async with self._transaction() as conn, conn.cursor() as cur:
            if self.leases is not None:
                await self.leases.check(conn, batch)
            if batch.thread is not None:
                record = batch.thread
                await cur.execute(q.UPSERT_THREAD, thread_params(record))
                await _sync_doc(cur, record.id, "name", record.name or "")
                await _sync_doc(cur, record.id, "preview", record.preview)
            if batch.turns:
                await cur.executemany(q.UPSERT_TURN, [turn_params(t) for t in batch.turns])
            if batch.items:
                await cur.executemany(q.UPSERT_ITEM, [item_params(i) for i in batch.items])
                await _index_items(cur, batch.items)
            if batch.history:
                await cur.executemany(q.INSERT_HISTORY, [history_params(h) for h in batch.history])
            if batch.events:
                await cur.executemany(q.INSERT_EVENT, [event_params(e) for e in batch.events])
                last: dict[str, int] = {}
                for event in batch.events:
                    last[event.thread_id] = max(last.get(event.thread_id, 0), event.seq)
                await cur.executemany(q.BUMP_LAST_SEQ, [(seq, tid) for tid, seq in last.items()])

    async def get_thread(self, thread_id: str) -> ThreadRecord | None:
        rows = await self._fetch(q.SELECT_THREAD, (thread_id,))
        return thread_from_row(rows[0]) if rows else None

    async def load_thread(self, thread_id: str) -> LoadedThread | None:
        async with self._snapshot() as conn:
            rows = await _rows(conn, q.SELECT_THREAD, (thread_id,))
            if not rows:
                return None
            return LoadedThread(
                record=thread_from_row(rows[0]),
                turns=[turn_from_row(r) for r in await _rows(conn, q.SELECT_TURNS, (thread_id,))],
                items=[item_from_row(r) for r in await _rows(conn, q.SELECT_ITEMS, (thread_id,))],
                history=[history_from_row(r) for r in await _rows(conn, q.SELECT_HISTORY, (thread_id,))],
            )

    async def load_session(self, thread_id: str) -> SessionLoad | None:
        async with self._snapshot() as conn:
            rows = await _rows(conn, q.SELECT_THREAD, (thread_id,))
            if not rows:
                return None
            history = StoredHistory([r[0] for r in await _rows(conn, q.HISTORY_ITEMS, (thread_id,))])
            turns, items = (await _rows(conn, q.COUNTS, {"t": thread_id}))[0]
        return SessionLoad(thread_from_row(rows[0]), history, int(turns), int(items))

    async def item_texts(self, thread_id: str) -> list[tuple[str, str]]:
        return [(r[0], r[1]) for r in await self._fetch(q.ITEM_TEXTS, (thread_id,))]

    async def thread_ids(self) -> list[str]:
        """Every stored thread's id (listed or not, archived or not), in id order."""
        return [str(r[0]) for r in await self._fetch("SELECT id FROM threads ORDER BY id", ())]

    async def list_threads(self, query: ThreadQuery) -> Page[ThreadRecord]:
        """One page of listed threads; raises InvalidCursor for a foreign cursor."""
        scope = thread_scope(query.sort_key)
        after = decode_cursor(query.cursor, scope) if query.cursor else None
        limit = clamp_limit(query.limit)
        sql, params = q.list_threads_sql(query, after, normalise_term(query.search_term), limit + 1)
        records = [thread_from_row(r) for r in await self._fetch(sql, params)]
        position = thread_position(query.sort_key)
        return make_page(records, limit=limit, scope=scope, cursor=query.cursor, position_of=position)

    async def list_turns(
        self, thread_id: str, *, cursor: str | None, limit: int, direction: SortDirection
    ) -> Page[TurnRecord]:
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
        scope = f"items:{thread_id}"
        after = decode_cursor(cursor, scope) if cursor else None
        limit = clamp_limit(limit)
        filters = {"thread_id": thread_id} | ({"turn_id": turn_id} if turn_id is not None else {})
        sql, params = q.ordinal_page_sql(
            "items", ITEM_COLUMNS, "item_id", filters, after, direction == "desc"
        )
        items = [item_from_row(r) for r in await self._fetch(sql, [*params, limit + 1])]
        return make_page(items, limit=limit, scope=scope, cursor=cursor, position_of=item_position)

    async def read_events(self, thread_id: str, after_seq: int, limit: int = 10_000) -> list[EventRecord]:
        rows = await self._fetch(q.SELECT_EVENTS, (thread_id, after_seq, max(0, limit)))
        return [event_from_row(r) for r in rows]

    async def last_event(self, thread_id: str, method: str) -> EventRecord | None:
        rows = await self._fetch(q.SELECT_LAST_EVENT, (thread_id, method))
        return event_from_row(rows[0]) if rows else None

    async def set_archived(self, thread_id: str, archived: bool, at: int) -> bool:
        async with self._fenced(thread_id) as conn:
            sql = "UPDATE threads SET archived = %s, updated_at = %s WHERE id = %s"
            cur = await conn.execute(sql, (int(archived), at, thread_id))
            return cur.rowcount > 0

    async def set_name(self, thread_id: str, name: str | None, at: int) -> bool:
        async with self._fenced(thread_id) as conn, conn.cursor() as cur:
            await cur.execute(
                "UPDATE threads SET name = %s, updated_at = %s WHERE id = %s", (name, at, thread_id)
            )
            found = cur.rowcount > 0
            if found:
                await _sync_doc(cur, thread_id, "name", name or "")
            return found

    async def delete_thread(self, thread_id: str) -> bool:
        """Delete the thread and, by cascade and trigger, everything that hangs off it."""
        async with self._fenced(thread_id) as conn:
            cur = await conn.execute("DELETE FROM threads WHERE id = %s", (thread_id,))
            return cur.rowcount > 0

    async def truncate_before_turn(self, thread_id: str, turn_id: str) -> bool:
        async with self._fenced(thread_id) as conn:
            sql = "SELECT ordinal FROM turns WHERE thread_id = %s AND turn_id = %s"
            rows = await _rows(conn, sql, (thread_id, turn_id))
            if not rows:
                return False
            for statement in q.TRUNCATE:
                await conn.execute(statement, {"t": thread_id, "o": rows[0][0]})
            return True

    async def interrupt_in_progress(self, now: int) -> list[tuple[str, str]]:
        """Only threads that never had a lease: a leased thread's running turn is a live node's,
        or is closed by the node that takes the thread over (threads/ownership.py)."""
        sql = (
            "UPDATE turns SET status = 'interrupted', completed_at = %s "
            "WHERE status = 'inProgress' AND NOT EXISTS "
            "(SELECT 1 FROM thread_leases AS l WHERE l.thread_id = turns.thread_id) "
            "RETURNING thread_id, turn_id, ordinal"
        )
        async with self._transaction() as conn:
            rows = await _rows(conn, sql, (now,))
        return [(r[0], r[1]) for r in sorted(rows, key=lambda r: (r[0], r[2], r[1]))]

    async def read_states(self, thread_ids: Sequence[str]) -> dict[str, ReadState]:
        if not thread_ids:
            return {}
        sql = (
            "SELECT t.id, r.first_unread, r.revision FROM threads AS t "
            "LEFT JOIN read_states AS r ON r.thread_id = t.id WHERE t.id = ANY(%s)"
        )
        rows = await self._fetch(sql, (list(thread_ids),))
        return {row[0]: _read_state(row[1], row[2]) for row in rows}

    async def set_read_state(
        self, thread_id: str, first_unread: dict[str, Any] | None, *, expected: str, revision: str
    ) -> ReadState | None:
        """Compare-and-set: the thread row is locked, so two writers cannot both pass the check."""
        async with self._fenced(thread_id) as conn:
            sql = (
                "SELECT r.first_unread, r.revision FROM threads AS t "
                "LEFT JOIN read_states AS r ON r.thread_id = t.id WHERE t.id = %s FOR UPDATE OF t"
            )
            rows = await _rows(conn, sql, (thread_id,))
            if not rows:
                return None
            current = _read_state(rows[0][0], rows[0][1])
            if current.revision != expected:
                return current
            stored = json.dumps(first_unread) if first_unread is not None else None
            await conn.execute(
                "INSERT INTO read_states (thread_id, first_unread, revision) VALUES (%s, %s, %s) "
                "ON CONFLICT (thread_id) DO UPDATE SET first_unread = excluded.first_unread, "
                "revision = excluded.revision",
                (thread_id, stored, revision),
            )
            return ReadState(first_unread, revision)

    def _require(self) -> AsyncConnectionPool:
        if self._pool is None:
            raise StoreError(f"database {redact(self.url)} is not open")
        return self._pool

    @contextlib.asynccontextmanager
    async def _fenced(self, *thread_ids: str) -> AsyncIterator[Conn]:
        """A write of these threads: like `commit`, refused (StaleOwner, nothing written) when the
        lease of one this node owns moved on; the lease row stays share-locked until it ends."""
        async with self._transaction() as conn:
            if self.leases is not None:
                await self.leases.check_threads(conn, thread_ids)
            yield conn

    @contextlib.asynccontextmanager
    async def _snapshot(self) -> AsyncIterator[Conn]:
        """A read-only transaction: several statements see one state of the database."""
        async with self._transaction(read_only=True) as conn:
            yield conn

    @contextlib.asynccontextmanager
    async def _transaction(self, *, read_only: bool = False) -> AsyncIterator[Conn]:
        """One transaction; a constraint violation or a server failure becomes StoreError."""
        pool = self._require()
        try:
            async with pool.connection() as conn, conn.transaction():
                if read_only:
                    await conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                yield conn
        except psycopg.IntegrityError as exc:
            raise StoreError(f"commit rejected by {redact(self.url)}: {exc}") from exc
        except psycopg.Error as exc:
            raise StoreError(describe_error(self.url, exc)) from exc

    async def _fetch(self, sql: str, params: Iterable[Any] | dict[str, Any]) -> list[Row]:
        pool = self._require()
        try:
            async with pool.connection() as conn:
                return await _rows(conn, sql, params)
        except psycopg.Error as exc:
            raise StoreError(describe_error(self.url, exc)) from exc


def _read_state(first_unread: str | None, revision: str | None) -> ReadState:
    if revision is None:
        return ReadState()
    return ReadState(json.loads(first_unread) if first_unread else None, revision)


async def _rows(conn: Conn, sql: str, params: Iterable[Any] | dict[str, Any]) -> list[Row]:
    cur = await conn.execute(sql, params if isinstance(params, dict) else tuple(params))
    return list(await cur.fetchall())


async def _sync_doc(cur: psycopg.AsyncCursor[Any], thread_id: str, key: str, text: str) -> None:
    if text:
        await cur.execute(q.UPSERT_DOC, (thread_id, key, None, text))
    else:
        await cur.execute(q.DELETE_DOC, (thread_id, key))


async def _index_items(cur: psycopg.AsyncCursor[Any], items: Sequence[ItemRecord]) -> None:
    """Index the batch's items in its transaction: PostgreSQL's trigram index is cheap to update."""
    upserts: list[tuple[Any, ...]] = []
    deletes: list[tuple[Any, ...]] = []
    for i in items:
        text, key = item_text(i.item), f"item:{i.item_id}"
        if text:
            upserts.append((i.thread_id, key, i.item_id, text, i.thread_id, i.item_id, i.turn_id))
        else:
            deletes.append((i.thread_id, key, i.thread_id, i.item_id, i.turn_id))
    if upserts:
        await cur.executemany(q.UPSERT_ITEM_DOC, upserts)
    if deletes:
        await cur.executemany(q.DELETE_ITEM_DOC, deletes)
