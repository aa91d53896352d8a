"""Attachments, queued messages and projects in the PostgreSQL store (as the SQLite mixins)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tether_server.store.desktop import AttachmentOwner, AttachmentRecord, QueuedRecord
from tether_server.store.postgres_extras import PgHost
from tether_server.store.projects import ProjectRecord
from tether_server.store.sqlite_rows import Row

_ATTACHMENT_COLUMNS = "id, thread_id, attachment_type, identity_key, payload, created_at"
_PROJECT_COLUMNS = "id, name, roots, metadata, position, created_at, updated_at, idempotency_key"


class PostgresDesktop:
    async def add_attachment(self: PgHost, attachment: AttachmentRecord) -> tuple[AttachmentRecord, bool]:
        a = attachment
        async with self._fenced(a.thread_id) as conn:
            cur = await conn.execute(
                f"INSERT INTO thread_attachments ({_ATTACHMENT_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (thread_id, attachment_type, identity_key) DO NOTHING",
                (a.id, a.thread_id, a.attachment_type, a.identity_key, json.dumps(a.payload), a.created_at),
            )
            if cur.rowcount > 0:
                return attachment, True
            cur = await conn.execute(
                f"SELECT {_ATTACHMENT_COLUMNS} FROM thread_attachments "
                "WHERE thread_id = %s AND attachment_type = %s AND identity_key = %s",
                (a.thread_id, a.attachment_type, a.identity_key),
            )
            row = await cur.fetchone()
        assert row is not None  # the conflict that skipped the insert is this row
        return _attachment(row), False

    async def list_attachments(
        self: PgHost, thread_id: str, after: tuple[int, str] | None, limit: int
    ) -> list[AttachmentRecord]:
        created, last = after if after is not None else (-1, "")
        rows = await self._fetch(
            f"SELECT {_ATTACHMENT_COLUMNS} FROM thread_attachments WHERE thread_id = %s "
            "AND (created_at, id) > (%s, %s) ORDER BY created_at, id LIMIT %s",
            (thread_id, created, last, limit),
        )
        return [_attachment(row) for row in rows]

    async def remove_attachment(
        self: PgHost, thread_id: str, attachment_type: str, identity_key: str
    ) -> AttachmentRecord | None:
        async with self._fenced(thread_id) as conn:
            cur = await conn.execute(
                f"DELETE FROM thread_attachments WHERE thread_id = %s AND attachment_type = %s "
                f"AND identity_key = %s RETURNING {_ATTACHMENT_COLUMNS}",
                (thread_id, attachment_type, identity_key),
            )
            row = await cur.fetchone()
        return None if row is None else _attachment(row)

    async def attachment_owners(
        self: PgHost,
        attachment_type: str,
        identity_key: str,
        archived: bool | None,
        after: str | None,
        limit: int,
    ) -> list[AttachmentOwner]:
        flag = "" if archived is None else "AND t.archived = %s"
        params: list[Any] = [attachment_type, identity_key, after or ""]
        if archived is not None:
            params.append(int(archived))
        rows = await self._fetch(
            "SELECT a.thread_id, t.archived FROM thread_attachments a JOIN threads t ON t.id = a.thread_id "
            f"WHERE a.attachment_type = %s AND a.identity_key = %s AND a.thread_id > %s {flag} "
            "ORDER BY a.thread_id LIMIT %s",
            [*params, limit],
        )
        return [AttachmentOwner(str(row[0]), bool(row[1])) for row in rows]

    async def queued(self: PgHost, thread_id: str) -> list[QueuedRecord]:
        rows = await self._fetch(
            "SELECT id, client_user_message_id, input, metadata FROM queued_submissions "
            "WHERE thread_id = %s ORDER BY position, id",
            (thread_id,),
        )
        return [
            QueuedRecord(str(r[0]), str(r[1]), json.loads(r[2]), None if r[3] is None else json.loads(r[3]))
            for r in rows
        ]

    async def save_queue(self: PgHost, thread_id: str, queue: Sequence[QueuedRecord]) -> None:
        rows = [
            (q.id, thread_id, index, q.client_user_message_id, json.dumps(q.input),
             None if q.metadata is None else json.dumps(q.metadata))
            for index, q in enumerate(queue)
        ]  # fmt: skip
        async with self._fenced(thread_id) as conn, conn.cursor() as cur:
            await cur.execute("DELETE FROM queued_submissions WHERE thread_id = %s", (thread_id,))
            if rows:
                await cur.executemany(
                    "INSERT INTO queued_submissions (id, thread_id, position, client_user_message_id, "
                    "input, metadata) VALUES (%s, %s, %s, %s, %s, %s)",
                    rows,
                )

    async def queued_threads(self: PgHost) -> list[str]:
        rows = await self._fetch("SELECT DISTINCT thread_id FROM queued_submissions ORDER BY thread_id", ())
        return [str(row[0]) for row in rows]

    async def list_projects(self: PgHost) -> list[ProjectRecord]:
        rows = await self._fetch(f"SELECT {_PROJECT_COLUMNS} FROM projects ORDER BY position, id", ())
        return [_project(r) for r in rows]

    async def get_project(self: PgHost, project_id: str) -> ProjectRecord | None:
        rows = await self._fetch(f"SELECT {_PROJECT_COLUMNS} FROM projects WHERE id = %s", (project_id,))
        return _project(rows[0]) if rows else None

    async def project_by_key(self: PgHost, idempotency_key: str) -> ProjectRecord | None:
        sql = f"SELECT {_PROJECT_COLUMNS} FROM projects WHERE idempotency_key = %s"
        rows = await self._fetch(sql, (idempotency_key,))
        return _project(rows[0]) if rows else None

    async def put_projects(
        self: PgHost,
        projects: Sequence[ProjectRecord],
        members: Sequence[str] = (),
        project_id: str | None = None,
    ) -> None:
        rows = [
            (p.id, p.name, json.dumps(p.roots), json.dumps(p.metadata), p.position, p.created_at,
             p.updated_at, p.idempotency_key)
            for p in projects
        ]  # fmt: skip
        async with self._fenced(*members) as conn, conn.cursor() as cur:
            if rows:
                await cur.executemany(
                    f"INSERT INTO projects ({_PROJECT_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
                    "ON CONFLICT (id) DO UPDATE SET name = excluded.name, roots = excluded.roots, "
                    "metadata = excluded.metadata, position = excluded.position, "
                    "updated_at = excluded.updated_at",
                    rows,
                )
            for thread_id in members:
                if project_id is None:
                    await cur.execute("DELETE FROM project_members WHERE thread_id = %s", (thread_id,))
                else:
                    await cur.execute(
                        "INSERT INTO project_members (thread_id, project_id) VALUES (%s, %s) "
                        "ON CONFLICT (thread_id) DO UPDATE SET project_id = excluded.project_id",
                        (thread_id, project_id),
                    )

    async def delete_project(self: PgHost, project_id: str) -> list[str]:
        async with self._transaction() as conn:
            cur = await conn.execute(
                "DELETE FROM project_members WHERE project_id = %s RETURNING thread_id", (project_id,)
            )
            held = sorted(str(row[0]) for row in await cur.fetchall())
            await conn.execute("DELETE FROM projects WHERE id = %s", (project_id,))
        return held

    async def thread_projects(self: PgHost, thread_ids: Sequence[str]) -> dict[str, str]:
        if not thread_ids:
            return {}
        sql = "SELECT thread_id, project_id FROM project_members WHERE thread_id = ANY(%s)"
        return {str(r[0]): str(r[1]) for r in await self._fetch(sql, (list(thread_ids),))}

    async def project_members(self: PgHost, project_id: str | None) -> list[str]:
        where, params = ("WHERE project_id = %s", [project_id]) if project_id is not None else ("", [])
        rows = await self._fetch(f"SELECT thread_id FROM project_members {where} ORDER BY thread_id", params)
        return [str(row[0]) for row in rows]

    async def project_recency(self: PgHost, project_ids: Sequence[str]) -> dict[str, int]:
        if not project_ids:
            return {}
        sql = (
            "SELECT m.project_id, MAX(t.recency_at) FROM project_members m "
            "JOIN threads t ON t.id = m.thread_id "
            "WHERE t.archived = 0 AND m.project_id = ANY(%s) GROUP BY m.project_id"
        )
        return {str(r[0]): int(r[1]) for r in await self._fetch(sql, (list(project_ids),))}


def _attachment(row: Row) -> AttachmentRecord:
    return AttachmentRecord(
        str(row[0]), str(row[1]), str(row[2]), str(row[3]), json.loads(row[4]), int(row[5])
    )


def _project(row: Row) -> ProjectRecord:
    return ProjectRecord(
        str(row[0]), str(row[1]), json.loads(row[2]), json.loads(row[3]), int(row[4]), int(row[5]),
        int(row[6]), None if row[7] is None else str(row[7]),
    )  # fmt: skip
