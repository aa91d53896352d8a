"""The in-memory twin of the attachments and queue tables (`SqliteDesktop`), in dicts."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from tether_server.store.desktop import AttachmentOwner, AttachmentRecord, QueuedRecord
from tether_server.store.projects import MemoryProjects


class _Thread(Protocol):
    @property
    def archived(self) -> bool: ...


class _Host(Protocol):
    @property
    def _desktop(self) -> _Tables: ...

    async def get_thread(self, thread_id: str) -> Any: ...


@dataclass
class _Tables:
    attachments: dict[tuple[str, str, str], AttachmentRecord] = field(default_factory=dict)
    queues: dict[str, list[QueuedRecord]] = field(default_factory=dict)


class MemoryDesktop(MemoryProjects):
    """Mixed into `MemoryThreadStore`; `drop_thread_desktop` is its half of deleting a thread."""

    _desktop_tables: _Tables | None = None

    @property
    def _desktop(self) -> _Tables:
        if self._desktop_tables is None:
            self._desktop_tables = _Tables()
        return self._desktop_tables

    def drop_thread_desktop(self, thread_id: str) -> None:
        tables = self._desktop
        tables.attachments = {k: a for k, a in tables.attachments.items() if a.thread_id != thread_id}
        tables.queues.pop(thread_id, None)
        self.drop_thread_project(thread_id)

    async def add_attachment(self, attachment: AttachmentRecord) -> tuple[AttachmentRecord, bool]:
        a = attachment
        key = (a.thread_id, a.attachment_type, a.identity_key)
        found = self._desktop.attachments.get(key)
        if found is not None:
            return copy.deepcopy(found), False
        self._desktop.attachments[key] = replace(a, payload=copy.deepcopy(a.payload))
        return attachment, True

    async def list_attachments(
        self, thread_id: str, after: tuple[int, str] | None, limit: int
    ) -> list[AttachmentRecord]:
        mine = [a for a in self._desktop.attachments.values() if a.thread_id == thread_id]
        mine.sort(key=lambda a: (a.created_at, a.id))
        if after is not None:
            mine = [a for a in mine if (a.created_at, a.id) > after]
        return copy.deepcopy(mine[:limit])

    async def remove_attachment(
        self, thread_id: str, attachment_type: str, identity_key: str
    ) -> AttachmentRecord | None:
        return self._desktop.attachments.pop((thread_id, attachment_type, identity_key), None)

    async def attachment_owners(
        self: _Host,
        attachment_type: str,
        identity_key: str,
        archived: bool | None,
        after: str | None,
        limit: int,
    ) -> list[AttachmentOwner]:
        owners: list[AttachmentOwner] = []
        candidates = sorted(
            a.thread_id
            for a in self._desktop.attachments.values()
            if (a.attachment_type, a.identity_key) == (attachment_type, identity_key)
            and (after is None or a.thread_id > after)
        )
        for thread_id in candidates:
            thread: _Thread | None = await self.get_thread(thread_id)
            if thread is not None and (archived is None or thread.archived == archived):
                owners.append(AttachmentOwner(thread_id, thread.archived))
        return owners[:limit]

    async def queued(self, thread_id: str) -> list[QueuedRecord]:
        return copy.deepcopy(self._desktop.queues.get(thread_id, []))

    async def save_queue(self, thread_id: str, queue: Sequence[QueuedRecord]) -> None:
        if queue:
            self._desktop.queues[thread_id] = copy.deepcopy(list(queue))
        else:
            self._desktop.queues.pop(thread_id, None)

    async def queued_threads(self) -> list[str]:
        return sorted(self._desktop.queues)
