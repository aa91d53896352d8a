"""The sections tables of the SQLite store (schema v6)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import aiosqlite

from tether_server.store.sections import Membership, SectionRecord
from tether_server.store.sqlite_rows import Row


class _Store(Protocol):
    def _transaction(self) -> contextlib.AbstractAsyncContextManager[aiosqlite.Connection]: ...

    async def _fetch(self, sql: str, params: Iterable[Any]) -> list[Row]: ...


_MEMBER_COLUMNS = "thread_id, section_id, position, entered_at"


class SqliteSections:
    """Mixed into `SqliteThreadStore`: its lock and transactions guard these reads and writes too."""

    async def list_sections(self: _Store, after: str | None, limit: int) -> list[SectionRecord]:
        rows = await self._fetch(
            "SELECT id, name, appearance FROM sections WHERE id > ? ORDER BY id LIMIT ?", (after or "", limit)
        )
        return [_section(row) for row in rows]

    async def get_section(self: _Store, section_id: str) -> SectionRecord | None:
        rows = await self._fetch("SELECT id, name, appearance FROM sections WHERE id = ?", (section_id,))
        return _section(rows[0]) if rows else None

    async def put_section(self: _Store, section: SectionRecord) -> None:
        appearance = None if section.appearance is None else json.dumps(section.appearance)
        async with self._transaction() as conn:
            await conn.execute(
                "INSERT INTO sections (id, name, appearance) VALUES (?, ?, ?) ON CONFLICT (id) "
                "DO UPDATE SET name = excluded.name, appearance = excluded.appearance",
                (section.id, section.name, appearance),
            )

    async def delete_section(self: _Store, section_id: str) -> bool:
        async with self._transaction() as conn:
            cur = await conn.execute("DELETE FROM sections WHERE id = ?", (section_id,))
            return cur.rowcount > 0

    async def memberships(self: _Store, thread_ids: Sequence[str]) -> dict[str, Membership]:
        if not thread_ids:
            return {}
        marks = ",".join("?" * len(thread_ids))
        sql = f"SELECT {_MEMBER_COLUMNS} FROM section_members WHERE thread_id IN ({marks})"
        return {m.thread_id: m for m in map(_member, await self._fetch(sql, list(thread_ids)))}

    async def section_members(self: _Store, section_id: str | None) -> list[Membership]:
        where, params = ("WHERE section_id = ?", [section_id]) if section_id is not None else ("", [])
        sql = f"SELECT {_MEMBER_COLUMNS} FROM section_members {where} ORDER BY position, thread_id"
        return [_member(row) for row in await self._fetch(sql, params)]

    async def set_memberships(self: _Store, put: Sequence[Membership], remove: Sequence[str] = ()) -> None:
        async with self._transaction() as conn:
            for thread_id in remove:
                await conn.execute("DELETE FROM section_members WHERE thread_id = ?", (thread_id,))
            for m in put:
                await conn.execute(
                    f"INSERT INTO section_members ({_MEMBER_COLUMNS}) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (thread_id) DO UPDATE SET section_id = excluded.section_id, "
                    "position = excluded.position, entered_at = excluded.entered_at",
                    (m.thread_id, m.section_id, m.position, m.entered_at),
                )


def _section(row: Row) -> SectionRecord:
    return SectionRecord(str(row[0]), str(row[1]), None if row[2] is None else json.loads(row[2]))


def _member(row: Row) -> Membership:
    return Membership(str(row[0]), str(row[1]), int(row[2]), int(row[3]))
