"""The projects tables of the SQLite store (schema v7)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import aiosqlite

from tether_server.store.projects import ProjectRecord
from tether_server.store.sqlite_rows import Row


class _Store(Protocol):
    def _transaction(self) -> contextlib.AbstractAsyncContextManager[aiosqlite.Connection]: ...

    async def _fetch(self, sql: str, params: Iterable[Any]) -> list[Row]: ...


_COLUMNS = "id, name, roots, metadata, position, created_at, updated_at, idempotency_key"


class SqliteProjects:
    """Mixed into `SqliteThreadStore` (through `SqliteDesktop`): its lock and transactions guard
    these reads and writes too."""

    async def list_projects(self: _Store) -> list[ProjectRecord]:
        return [
            _project(r)
            for r in await self._fetch(f"SELECT {_COLUMNS} FROM projects ORDER BY position, id", ())
        ]

    async def get_project(self: _Store, project_id: str) -> ProjectRecord | None:
        rows = await self._fetch(f"SELECT {_COLUMNS} FROM projects WHERE id = ?", (project_id,))
        return _project(rows[0]) if rows else None

    async def project_by_key(self: _Store, idempotency_key: str) -> ProjectRecord | None:
        rows = await self._fetch(
            f"SELECT {_COLUMNS} FROM projects WHERE idempotency_key = ?", (idempotency_key,)
        )
        return _project(rows[0]) if rows else None

    async def put_projects(
        self: _Store,
        projects: Sequence[ProjectRecord],
        members: Sequence[str] = (),
        project_id: str | None = None,
    ) -> None:
        async with self._transaction() as conn:
            await conn.executemany(
                f"INSERT INTO projects ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET "
                "name = excluded.name, roots = excluded.roots, metadata = excluded.metadata, "
                "position = excluded.position, updated_at = excluded.updated_at",
                [
                    (
                        p.id,
                        p.name,
                        json.dumps(p.roots),
                        json.dumps(p.metadata),
                        p.position,
                        p.created_at,
                        p.updated_at,
                        p.idempotency_key,
                    )
                    for p in projects
                ],
            )
            for thread_id in members:
                if project_id is None:
                    await conn.execute("DELETE FROM project_members WHERE thread_id = ?", (thread_id,))
                else:
                    await conn.execute(
                        "INSERT INTO project_members (thread_id, project_id) VALUES (?, ?) "
                        "ON CONFLICT (thread_id) DO UPDATE SET project_id = excluded.project_id",
                        (thread_id, project_id),
                    )

    async def delete_project(self: _Store, project_id: str) -> list[str]:
        async with self._transaction() as conn:
            async with conn.execute(
                "DELETE FROM project_members WHERE project_id = ? RETURNING thread_id", (project_id,)
            ) as cur:
                held = sorted(str(row[0]) for row in await cur.fetchall())
            await conn.execute("DELETE FROM projects WHERE id = ?", (project_id,))
        return held

    async def thread_projects(self: _Store, thread_ids: Sequence[str]) -> dict[str, str]:
        if not thread_ids:
            return {}
        marks = ",".join("?" * len(thread_ids))
        sql = f"SELECT thread_id, project_id FROM project_members WHERE thread_id IN ({marks})"
        return {str(r[0]): str(r[1]) for r in await self._fetch(sql, list(thread_ids))}

    async def project_members(self: _Store, project_id: str | None) -> list[str]:
        where, params = ("WHERE project_id = ?", [project_id]) if project_id is not None else ("", [])
        rows = await self._fetch(f"SELECT thread_id FROM project_members {where} ORDER BY thread_id", params)
        return [str(row[0]) for row in rows]

    async def project_recency(self: _Store, project_ids: Sequence[str]) -> dict[str, int]:
        if not project_ids:
            return {}
        marks = ",".join("?" * len(project_ids))
        sql = (
            "SELECT m.project_id, MAX(t.recency_at) FROM project_members m "
            "JOIN threads t ON t.id = m.thread_id "
            f"WHERE t.archived = 0 AND m.project_id IN ({marks}) GROUP BY m.project_id"
        )
        return {str(r[0]): int(r[1]) for r in await self._fetch(sql, list(project_ids))}


def _project(row: Row) -> ProjectRecord:
    return ProjectRecord(
        str(row[0]),
        str(row[1]),
        json.loads(row[2]),
        json.loads(row[3]),
        int(row[4]),
        int(row[5]),
        int(row[6]),
        None if row[7] is None else str(row[7]),
    )
