"""Looking a thread up for a handler: loaded or stored, and its list order."""

from __future__ import annotations

from typing import cast

from tether_server.errors import NotFound
from tether_server.processor.settings import wire
from tether_server.processor.state import ServerState
from tether_server.store.base import SortKey, ThreadRecord


async def record_or_fail(state: ServerState, thread_id: str) -> ThreadRecord:
    """The thread's record, loaded or stored; NotFound (Codex's text) when there is none."""
    handle = state.threads.get(thread_id)
    if handle is not None:
        return handle.record
    record = await state.store.get_thread(thread_id)
    if record is None:
        raise NotFound(f"thread not found: {thread_id}")
    return record


def sort_key_of(key: object) -> SortKey:
    # Section position is no store order: `section_views` sorts a section's threads itself.
    value = wire(key)
    if value in ("created_at", "updated_at", "recency_at"):
        return cast(SortKey, value)
    return "created_at"
