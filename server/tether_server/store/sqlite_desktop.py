"""The attachments and queue tables of the SQLite store (schema v7)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import aiosqlite

from tether_server.store.desktop import AttachmentOwner, AttachmentRecord, QueuedRecord
from tether_server.store.sqlite_projects import SqliteProjects
from tether_server.store.sqlite_rows import Row


class _Store(Protocol):
    def _transaction(self) -> contextlib.AbstractAsyncContextManager[aiosqlite.Connection]: ...

    async def _fetch(self, sql: str, params: Iterable[Any]) -> list[Row]: ...


_ATTACHMENT_COLUMNS = "id, thread_id, attachment_type, identity_key, payload, created_at"


class SqliteDesktop(SqliteProjects):
    """Mixed into `SqliteThreadStore`: its lock and transactions guard these reads and writes too."""

    async def add_attachment(self: _Store, attachment: AttachmentRecord) -> tuple[AttachmentRecord, bool]:
        a = attachment
        async with self._transaction() as conn:
            cur = await conn.execute(
                f"INSERT INTO thread_attachments ({_ATTACHMENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (thread_id, attachment_type, identity_key) DO NOTHING",
                (a.id, a.thread_id, a.attachment_type, a.identity_key, json.dumps(a.payload), a.created_at),
            )
            if cur.rowcount > 0:
                return attachment, True
            async with conn.execute(
                f"SELECT {_ATTACHMENT_COLUMNS} FROM thread_attachments "
                "WHERE thread_id = ? AND attachment_type = ? AND identity_key = ?",
                (a.thread_id, a.attachment_type, a.identity_key),
            ) as rows:
                row = await rows.fetchone()
        assert row is not None  # the conflict that skipped the insert is this row
        return _attachment(row), False

    async def list_attachments(
        self: _Store, thread_id: str, after: tuple[int, str] | None, limit: int
    ) -> list[AttachmentRecord]:
        created, last = after if after is not None else (-1, "")
        rows = await self._fetch(
            f"SELECT {_ATTACHMENT_COLUMNS} FROM thread_attachments WHERE thread_id = ? "
            "AND (created_at, id) > (?, ?) ORDER BY created_at, id LIMIT ?",
            (thread_id, created, last, limit),
        )
        return [_attachment(row) for row in rows]

    async def remove_attachment(
        self: _Store, thread_id: str, attachment_type: str, identity_key: str
    ) -> AttachmentRecord | None:
        async with (
            self._transaction() as conn,
            conn.execute(
                f"DELETE FROM thread_attachments WHERE thread_id = ? AND attachment_type = ? "
                f"AND identity_key = ? RETURNING {_ATTACHMENT_COLUMNS}",
                (thread_id, attachment_type, identity_key),
            ) as cur,
        ):
            row = await cur.fetchone()
        return None if row is None else _attachment(row)

    async def attachment_owners(
        self: _Store,
        attachment_type: str,
        identity_key: str,
        archived: bool | None,
        after: str | None,
        limit: int,
    ) -> list[AttachmentOwner]:
        flag = "" if archived is None else "AND t.archived = ?"
        params: list[Any] = [attachment_type, identity_key, after or ""]
        if archived is not None:
            params.append(int(archived))
        rows = await self._fetch(
            "SELECT a.thread_id, t.archived FROM thread_attachments a JOIN threads t ON t.id = a.thread_id "
            f"WHERE a.attachment_type = ? AND a.identity_key = ? AND a.thread_id > ? {flag} "
            "ORDER BY a.thread_id LIMIT ?",
            [*params, limit],
        )
        return [AttachmentOwner(str(row[0]), bool(row[1])) for row in rows]

    async def queued(self: _Store, thread_id: str) -> list[QueuedRecord]:
        rows = await self._fetch(
            "SELECT id, client_user_message_id, input, metadata FROM queued_submissions "
            "WHERE thread_id = ? ORDER BY position, id",
            (thread_id,),
        )
        return [
            QueuedRecord(str(r[0]), str(r[1]), json.loads(r[2]), None if r[3] is None else json.loads(r[3]))
            for r in rows
        ]

    async def save_queue(self: _Store, thread_id: str, queue: Sequence[QueuedRecord]) -> None:
        async with self._transaction() as conn:
            await conn.execute("DELETE FROM queued_submissions WHERE thread_id = ?", (thread_id,))
            await conn.executemany(
                "INSERT INTO queued_submissions (id, thread_id, position, client_user_message_id, input, "
                "metadata) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (
                        q.id,
                        thread_id,
                        index,
                        q.client_user_message_id,
                        json.dumps(q.input),
                        None if q.metadata is None else json.dumps(q.metadata),
                    )
                    for index, q in enumerate(queue)
                ],
            )

    async def queued_threads(self: _Store) -> list[str]:
        rows = await self._fetch("SELECT DISTINCT thread_id FROM queued_submissions ORDER BY thread_id", ())
        return [str(row[0]) for row in rows]


def _attachment(row: Row) -> AttachmentRecord:
    return AttachmentRecord(
        str(row[0]), str(row[1]), str(row[2]), str(row[3]), json.loads(row[4]), int(row[5])
    )
