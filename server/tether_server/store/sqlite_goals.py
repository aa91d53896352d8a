"""The goals table of the SQLite store: one wire `ThreadGoal` JSON per thread."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable
from typing import Any, Protocol

import aiosqlite

from tether_server.store.sqlite_rows import Row


class _Store(Protocol):
    def _transaction(self) -> contextlib.AbstractAsyncContextManager[aiosqlite.Connection]: ...

    async def _fetch(self, sql: str, params: Iterable[Any]) -> list[Row]: ...


class SqliteGoals:
    """Mixed into `SqliteThreadStore`: its lock and transactions guard these reads and writes too."""

    async def get_goal(self: _Store, thread_id: str) -> dict[str, Any] | None:
        rows = await self._fetch("SELECT goal FROM goals WHERE thread_id = ?", (thread_id,))
        if not rows:
            return None
        goal: dict[str, Any] = json.loads(rows[0][0])
        return goal

    async def put_goal(self: _Store, thread_id: str, goal: dict[str, Any] | None) -> bool:
        async with self._transaction() as conn:
            async with conn.execute("SELECT 1 FROM threads WHERE id = ?", (thread_id,)) as cur:
                if await cur.fetchone() is None:
                    return False
            if goal is None:
                await conn.execute("DELETE FROM goals WHERE thread_id = ?", (thread_id,))
            else:
                await conn.execute(
                    "INSERT INTO goals (thread_id, goal) VALUES (?, ?) "
                    "ON CONFLICT (thread_id) DO UPDATE SET goal = excluded.goal",
                    (thread_id, json.dumps(goal)),
                )
            return True
