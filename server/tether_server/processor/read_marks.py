"""Read markers that move on their own: a finished turn leaves its thread unread from that turn.

As Codex: when a turn of a stored thread completes and nothing is unread yet, the thread's first
unread position becomes that turn (a new revision), and the clients hear
`thread/readState/changed`; a client that shows the turn then marks it read with
`thread/readState/update`. An already unread thread keeps its earliest position. Only clients
that opted into the experimental API hear of markers (Codex sends a plain client none).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterable

from tether_protocol import server_methods as sm
from tether_protocol.v2 import thread_extras as tx
from tether_server import log
from tether_server.processor.views import wire_read_state
from tether_server.rpc.connection import Connection
from tether_server.rpc.outgoing import send_notification
from tether_server.store.base import StoreError, ThreadStore
from tether_server.threads.handle import ThreadEvent, ThreadHandle

_log = log.get(__name__)


class ReadMarks:
    """Attached to each loaded thread (`ThreadManager.on_loaded`); keeps its tasks until they end."""

    def __init__(self, store: ThreadStore, connections: Callable[[], Iterable[Connection]]) -> None:
        self._store = store
        self._connections = connections
        self._tasks: set[asyncio.Task[None]] = set()
        # Loaded threads known to be unread already, so that a completed turn need not read the
        # store to find nothing to do; each `forget` (a client set the marker) bumps a generation,
        # so that what a read in flight meanwhile saw is not kept.
        self._unread: set[str] = set()
        self._generation: dict[str, int] = {}

    def attach(self, handle: ThreadHandle) -> None:
        if handle.ephemeral:
            return  # nothing stored, nothing to mark
        self.forget(handle.record.id)
        handle.add_listener(self._on_event, self._on_events)

    def forget(self, thread_id: str) -> None:
        """The thread's marker is about to change elsewhere (`thread/readState/update`): read it again."""
        self._unread.discard(thread_id)
        self._generation[thread_id] = self._generation.get(thread_id, 0) + 1

    def _on_events(self, events: list[ThreadEvent]) -> None:
        for event in events:  # a run of deltas: a turn/completed among them is not expected
            if event.spec is sm.TURN_COMPLETED:
                self._on_event(event)

    def _on_event(self, event: ThreadEvent) -> None:
        if event.spec is not sm.TURN_COMPLETED:
            return
        turn_id = event.params.get("turn", {}).get("id")
        if isinstance(turn_id, str):
            task = asyncio.get_running_loop().create_task(self._mark_unread(event.thread_id, turn_id))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _mark_unread(self, thread_id: str, turn_id: str) -> None:
        if thread_id in self._unread:
            return
        generation = self._generation.get(thread_id, 0)
        try:
            current = (await self._store.read_states([thread_id])).get(thread_id)
            if current is None:
                return
            if current.first_unread is not None:
                self._keep_unread(thread_id, generation)
                return
            position = {"type": "turn", "turnId": turn_id}
            stored = await self._store.set_read_state(
                thread_id, position, expected=current.revision, revision=str(uuid.uuid4())
            )
        except StoreError as exc:  # a background write: logged, never raised into the loop
            _log.warning("read_marks.store_failed", thread_id=thread_id, error=str(exc))
            return
        if stored is None or stored.first_unread != position:
            return  # a client changed it meanwhile; its own notification went out
        self._keep_unread(thread_id, generation)
        changed = tx.ThreadReadStateChangedNotification(
            thread_id=thread_id, read_state=wire_read_state(stored)
        )
        send_notification(experimental(self._connections()), sm.THREAD_READ_STATE_CHANGED, changed)

    def _keep_unread(self, thread_id: str, generation: int) -> None:
        if self._generation.get(thread_id, 0) == generation:
            self._unread.add(thread_id)


def experimental(connections: Iterable[Connection]) -> list[Connection]:
    """Read markers are experimental: Codex tells only clients that opted into the experimental API."""
    return [conn for conn in connections if conn.capabilities.experimental_api]
