"""Whole-thread reads of the SQLite store that skip what their callers do not need.

Loading a thread into memory needs its model history and how many turns and items it has, not
every turn and item parsed; a full `thread/resume` or `thread/read` sends the items as they are
stored (wire JSON), so they are read as text and never parsed.
"""

from __future__ import annotations

import contextlib
from typing import Protocol

import aiosqlite

from tether_server.store import sqlite_queries as q
from tether_server.store.base import SessionLoad, StoredHistory
from tether_server.store.sqlite_open import fetch_all
from tether_server.store.sqlite_rows import thread_from_row

_COUNTS = (
    "SELECT (SELECT COUNT(*) FROM turns WHERE thread_id = ?1), "
    "(SELECT COUNT(*) FROM items WHERE thread_id = ?1)"
)
_HISTORY = "SELECT item FROM history WHERE thread_id = ? ORDER BY ordinal"
_ITEM_TEXTS = "SELECT turn_id, item FROM items WHERE thread_id = ? ORDER BY ordinal, item_id"


class _Store(Protocol):
    def _read(self) -> contextlib.AbstractAsyncContextManager[aiosqlite.Connection]: ...


class SqliteTranscript:
    """Mixed into `SqliteThreadStore`: one read (under its lock) per call."""

    async def load_session(self: _Store, thread_id: str) -> SessionLoad | None:
        async with self._read() as conn:
            rows = await fetch_all(conn, q.SELECT_THREAD, (thread_id,))
            if not rows:
                return None
            history = StoredHistory([r[0] for r in await fetch_all(conn, _HISTORY, (thread_id,))])
            turns, items = (await fetch_all(conn, _COUNTS, (thread_id,)))[0]
        return SessionLoad(thread_from_row(rows[0]), history, turns, items)

    async def item_texts(self: _Store, thread_id: str) -> list[tuple[str, str]]:
        async with self._read() as conn:
            return [(r[0], r[1]) for r in await fetch_all(conn, _ITEM_TEXTS, (thread_id,))]

    async def thread_ids(self: _Store) -> list[str]:
        """Every stored thread's id (listed or not, archived or not), in id order."""
        async with self._read() as conn:
            return [str(r[0]) for r in await fetch_all(conn, "SELECT id FROM threads ORDER BY id", ())]
