"""What `thread/resume` reports beside the thread, as Codex 0.169.0 does: cursors that page the
history back from its newest turn and item, and the thread's last token usage."""

from __future__ import annotations

from tether_protocol import server_methods as sm
from tether_protocol.v2.notifications import ThreadTokenUsageUpdatedNotification
from tether_server.store.base import ThreadStore
from tether_server.store.cursors import anchor_cursor


async def backwards_cursors(store: ThreadStore, thread_id: str) -> tuple[str | None, str | None]:
    """The turns and the items cursors: read descending, each page starts with the newest."""
    turns = await store.list_turns(thread_id, cursor=None, limit=1, direction="desc")
    items = await store.list_items(thread_id, turn_id=None, cursor=None, limit=1, direction="desc")
    return _newest(turns.backwards_cursor if turns.data else None), _newest(
        items.backwards_cursor if items.data else None
    )


def _newest(cursor: str | None) -> str | None:
    return anchor_cursor(cursor, "desc") if cursor is not None else None


async def last_usage(store: ThreadStore, thread_id: str) -> ThreadTokenUsageUpdatedNotification | None:
    """The thread's last `thread/tokenUsage/updated` as it was sent (None before any model call):
    Codex repeats it after a resume, so a client shows the context use at once."""
    last = await store.last_event(thread_id, sm.THREAD_TOKEN_USAGE_UPDATED.name)
    return None if last is None else ThreadTokenUsageUpdatedNotification.model_validate(last.params)
