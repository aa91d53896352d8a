"""Thread attachments and queued follow-up messages in the store: the records and the port.

An attachment is named within its thread by (type, identity key); a thread's attachments are
ordered by (created_at, id). A thread's queue is a short list kept in order as a whole: every
change writes the thread's queue anew in one transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from tether_server.store.projects import ProjectStore


@dataclass(frozen=True)
class AttachmentRecord:
    id: str
    thread_id: str
    attachment_type: str
    identity_key: str
    payload: Any  # any JSON value
    created_at: int  # unix seconds


@dataclass(frozen=True)
class AttachmentOwner:
    thread_id: str
    archived: bool


@dataclass(frozen=True)
class QueuedRecord:
    id: str
    client_user_message_id: str
    input: list[dict[str, Any]]  # wire UserInput JSON
    metadata: dict[str, str] | None = None


class DesktopStore(ProjectStore, Protocol):
    async def add_attachment(self, attachment: AttachmentRecord) -> tuple[AttachmentRecord, bool]:
        """Insert it unless its thread has one of the same (type, identity key) already: the
        stored one and whether it was created, decided in one transaction."""
        ...

    async def list_attachments(
        self, thread_id: str, after: tuple[int, str] | None, limit: int
    ) -> list[AttachmentRecord]:
        """A thread's attachments after the (created_at, id) position, in that order."""
        ...

    async def remove_attachment(
        self, thread_id: str, attachment_type: str, identity_key: str
    ) -> AttachmentRecord | None:
        """Delete it; the deleted record, None when there was none."""
        ...

    async def attachment_owners(
        self, attachment_type: str, identity_key: str, archived: bool | None, after: str | None, limit: int
    ) -> list[AttachmentOwner]:
        """Stored threads holding that attachment, by thread id after `after`; `archived`
        None: all, else only threads with that archived flag."""
        ...

    async def queued(self, thread_id: str) -> list[QueuedRecord]:
        """A thread's queued messages in order."""
        ...

    async def save_queue(self, thread_id: str, queue: Sequence[QueuedRecord]) -> None:
        """Replace the thread's queue with `queue`, in order, in one transaction."""
        ...

    async def queued_threads(self) -> list[str]:
        """The threads with at least one queued message."""
        ...
