"""The full-text index of items, brought up to date after the commits that wrote them.

Indexing a message with the trigram tokenizer costs about 1 ms per KB. Done inside the commit that
writes the item, it delayed `item/completed` and the `turn/completed` behind it by as much. A commit
now only marks the item (`search_pending`, in the same transaction) and the store indexes the marked
items in a transaction of its own shortly after. The mark survives a crash, so an item that was
written is indexed at the next start at the latest. A search indexes whatever is marked first.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Awaitable, Callable

import orjson

from tether_server import log
from tether_server.store import sqlite_queries as q
from tether_server.store.base import StoreError
from tether_server.store.search_text import item_text
from tether_server.store.sqlite_open import immediate_transaction

_log = log.get(__name__)
INDEX_DELAY_S = 0.05
"""How long after a commit that wrote items they are indexed: the turn's next commits go first."""

MARK = "INSERT OR IGNORE INTO search_pending (thread_id, item_id) VALUES (?, ?)"
_MARKED = (
    "SELECT p.thread_id, p.item_id, i.item FROM search_pending AS p "
    "LEFT JOIN items AS i ON i.thread_id = p.thread_id AND i.item_id = p.item_id"
)
_ANY_MARKED = "SELECT 1 FROM search_pending LIMIT 1"
_UNMARK = "DELETE FROM search_pending WHERE thread_id = ? AND item_id = ?"


def index_marked_sync(db: sqlite3.Connection) -> int:
    """Index every marked item as it is now (an item since removed: its text leaves the index), in
    one transaction on the database thread. Returns how many were marked."""
    if db.execute(_ANY_MARKED).fetchone() is None:  # nothing to write: no write lock taken
        return 0
    with immediate_transaction(db):
        rows = db.execute(_MARKED).fetchall()
        upserts: list[tuple[str, str, str, str]] = []
        deletes: list[tuple[str, str]] = []
        for thread_id, item_id, raw in rows:
            text = item_text(orjson.loads(raw)) if raw is not None else ""
            if text:
                upserts.append((thread_id, f"item:{item_id}", item_id, text))
            else:
                deletes.append((thread_id, f"item:{item_id}"))
        db.executemany(q.UPSERT_DOC, upserts)
        db.executemany(q.DELETE_DOC, deletes)
        db.executemany(_UNMARK, [(thread_id, item_id) for thread_id, item_id, _ in rows])
    return len(rows)


class CatchUp:
    """When the store brings the index up to date: `INDEX_DELAY_S` after the first commit that
    marked items (not after the last: steady traffic must not starve it), before a search, at open
    and at close."""

    def __init__(self, index: Callable[[], Awaitable[None]]) -> None:
        self._index = index
        self._marked = False
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def after_commit(self) -> None:
        """A commit marked items."""
        self._marked = True
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(INDEX_DELAY_S, self._start)

    async def before_search(self) -> None:
        if self._marked:
            await self.now()

    async def now(self) -> None:
        """Index what is marked. Raises StoreError (the marks stay for the next try)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._marked = False
        try:
            await self._index()
        except StoreError:
            self._marked = True
            raise

    async def settle(self) -> None:
        """Before closing: finish a catch-up under way, then index what is still marked."""
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._marked:
            with contextlib.suppress(StoreError):  # the marks are indexed at the next start
                await self.now()

    def _start(self) -> None:
        self._timer = None
        task = asyncio.get_running_loop().create_task(self.try_now())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def try_now(self) -> None:
        """`now`, but a failure (a full disk, a read-only file) is logged, not raised: the marks
        are tried again after the next commit, before a search, or at the next start."""
        try:
            await self.now()
        except StoreError as exc:
            _log.warning("store.index_failed", error=str(exc))
