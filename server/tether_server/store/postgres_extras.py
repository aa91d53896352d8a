"""Goals and sections in the PostgreSQL store: the same tables and behaviour as the SQLite mixins."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import psycopg

from tether_server.store.sections import Membership, SectionRecord
from tether_server.store.sqlite_rows import Row

Conn = psycopg.AsyncConnection[tuple[Any, ...]]


class PgHost(Protocol):
    """What the mixins need from `PostgresThreadStore`."""

    def _transaction(self) -> contextlib.AbstractAsyncContextManager[Conn]: ...

    def _fenced(self, *thread_ids: str) -> contextlib.AbstractAsyncContextManager[Conn]: ...

    async def _fetch(self, sql: str, params: Iterable[Any] | dict[str, Any]) -> list[Row]: ...


_MEMBER_COLUMNS = "thread_id, section_id, position, entered_at"


class PostgresGoals:
    async def get_goal(self: PgHost, thread_id: str) -> dict[str, Any] | None:
        rows = await self._fetch("SELECT goal FROM goals WHERE thread_id = %s", (thread_id,))
        if not rows:
            return None
        goal: dict[str, Any] = json.loads(rows[0][0])
        return goal

    async def put_goal(self: PgHost, thread_id: str, goal: dict[str, Any] | None) -> bool:
        async with self._fenced(thread_id) as conn:
            cur = await conn.execute("SELECT 1 FROM threads WHERE id = %s FOR UPDATE", (thread_id,))
            if await cur.fetchone() is None:
                return False
            if goal is None:
                await conn.execute("DELETE FROM goals WHERE thread_id = %s", (thread_id,))
            else:
                await conn.execute(
                    "INSERT INTO goals (thread_id, goal) VALUES (%s, %s) "
                    "ON CONFLICT (thread_id) DO UPDATE SET goal = excluded.goal",
                    (thread_id, json.dumps(goal)),
                )
            return True


class PostgresSections:
    async def list_sections(self: PgHost, after: str | None, limit: int) -> list[SectionRecord]:
        rows = await self._fetch(
            "SELECT id, name, appearance FROM sections WHERE id > %s ORDER BY id LIMIT %s",
            (after or "", limit),
        )
        return [_section(row) for row in rows]

    async def get_section(self: PgHost, section_id: str) -> SectionRecord | None:
        rows = await self._fetch("SELECT id, name, appearance FROM sections WHERE id = %s", (section_id,))
        return _section(rows[0]) if rows else None

    async def put_section(self: PgHost, section: SectionRecord) -> None:
        appearance = None if section.appearance is None else json.dumps(section.appearance)
        async with self._transaction() as conn:
            await conn.execute(
                "INSERT INTO sections (id, name, appearance) VALUES (%s, %s, %s) ON CONFLICT (id) "
                "DO UPDATE SET name = excluded.name, appearance = excluded.appearance",
                (section.id, section.name, appearance),
            )

    async def delete_section(self: PgHost, section_id: str) -> bool:
        async with self._transaction() as conn:
            cur = await conn.execute("DELETE FROM sections WHERE id = %s", (section_id,))
            return cur.rowcount > 0

    async def memberships(self: PgHost, thread_ids: Sequence[str]) -> dict[str, Membership]:
        if not thread_ids:
            return {}
        sql = f"SELECT {_MEMBER_COLUMNS} FROM section_members WHERE thread_id = ANY(%s)"
        return {m.thread_id: m for m in map(_member, await self._fetch(sql, (list(thread_ids),)))}

    async def section_members(self: PgHost, section_id: str | None) -> list[Membership]:
        where, params = ("WHERE section_id = %s", [section_id]) if section_id is not None else ("", [])
        sql = f"SELECT {_MEMBER_COLUMNS} FROM section_members {where} ORDER BY position, thread_id"
        return [_member(row) for row in await self._fetch(sql, params)]

    async def set_memberships(self: PgHost, put: Sequence[Membership], remove: Sequence[str] = ()) -> None:
        async with self._fenced(*remove, *(m.thread_id for m in put)) as conn:
            for thread_id in remove:
                await conn.execute("DELETE FROM section_members WHERE thread_id = %s", (thread_id,))
            for m in put:
                await conn.execute(
                    f"INSERT INTO section_members ({_MEMBER_COLUMNS}) VALUES (%s, %s, %s, %s) "
                    "ON CONFLICT (thread_id) DO UPDATE SET section_id = excluded.section_id, "
                    "position = excluded.position, entered_at = excluded.entered_at",
                    (m.thread_id, m.section_id, m.position, m.entered_at),
                )


def _section(row: Row) -> SectionRecord:
    return SectionRecord(str(row[0]), str(row[1]), None if row[2] is None else json.loads(row[2]))


def _member(row: Row) -> Membership:
    return Membership(str(row[0]), str(row[1]), int(row[2]), int(row[3]))
