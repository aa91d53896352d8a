"""Queued follow-up messages (`thread/queue/*`), as Codex 0.169.0 runs them.

A thread's queue is in the store, so it outlives a restart. A message queued on an idle loaded
thread with nothing queued starts at once; when a turn completes (not interrupted, not failed) the
next queued message starts. A queue left waiting (its turn interrupted, or the daemon restarted)
stays put until `thread/queue/start`. Every change of a loaded thread's queue goes to the thread's
subscribers as `thread/queue/changed`, before the answer of the request that made it; a thread
that is not loaded has nobody to tell (as Codex).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable

from tether_protocol import server_methods as sm
from tether_protocol.spec import WireParams
from tether_protocol.v2.thread_desktop import ThreadQueueChangedNotification
from tether_protocol.v2.turn import TurnStartParams
from tether_server import log
from tether_server.config.model import Config
from tether_server.errors import InvalidRequest
from tether_server.processor import turn_options
from tether_server.processor.settings import turn_settings
from tether_server.store.base import StoreError, ThreadStore
from tether_server.store.desktop import QueuedRecord
from tether_server.threads.handle import StartedTurn, ThreadEvent, ThreadHandle
from tether_server.threads.manager import ThreadManager

_log = log.get(__name__)

NOT_LOADED = "resume the thread before starting a queued message"
BUSY = "thread already has an active or pending turn"
EMPTY = "queue is empty"


def not_found(queued_id: str) -> InvalidRequest:
    return InvalidRequest(f"queued submission not found: {queued_id}")


class QueueBook:
    """The queues of every thread: one lock per thread orders requests and the drain after a turn."""

    def __init__(
        self,
        store: ThreadStore,
        threads: ThreadManager,
        config: Callable[[], Config],
    ) -> None:
        self._store = store
        self._threads = threads
        self._config = config
        self._locks: dict[str, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        # Loaded threads whose queue is known to be empty: every change of a loaded thread's queue
        # comes through `save` here (a fleet relays queue requests to the thread's owner), so the
        # drain after each completed turn need not read the store to find nothing.
        self._empty: weakref.WeakSet[ThreadHandle] = weakref.WeakSet()

    def lock(self, thread_id: str) -> asyncio.Lock:
        return self._locks.setdefault(thread_id, asyncio.Lock())

    async def save(self, thread_id: str, queue: list[QueuedRecord]) -> None:
        """Write the thread's queue and tell its subscribers it changed (the caller holds the lock)."""
        await self._store.save_queue(thread_id, queue)
        handle = self._threads.get(thread_id)
        if handle is not None:
            if queue:
                self._empty.discard(handle)
            else:
                self._empty.add(handle)
            note: WireParams[ThreadQueueChangedNotification] = WireParams({"threadId": thread_id})
            handle.publish(sm.THREAD_QUEUE_CHANGED, note)

    async def add(self, thread_id: str, record: QueuedRecord) -> StartedTurn | None:
        """Queue `record`; on an idle loaded thread with nothing queued it starts at once (held)."""
        async with self.lock(thread_id):
            queue = await self._store.queued(thread_id)
            await self.save(thread_id, [*queue, record])
            handle = self._threads.get(thread_id)
            if queue or handle is None or handle.running:
                return None
            return await self._start(handle, record.id)

    async def start(self, thread_id: str, queued_id: str | None) -> StartedTurn:
        """`thread/queue/start`: the named (or first) message as a turn of the idle thread (held)."""
        async with self.lock(thread_id):
            handle = self._threads.get(thread_id)
            if handle is None:
                raise InvalidRequest(NOT_LOADED)
            if handle.running:
                raise InvalidRequest(BUSY)
            queue = await self._store.queued(thread_id)
            if not queue:
                raise InvalidRequest(EMPTY)
            chosen = queue[0].id if queued_id is None else queued_id
            if all(q.id != chosen for q in queue):
                raise not_found(chosen)
            return await self._start(handle, chosen)

    async def _start(self, handle: ThreadHandle, queued_id: str) -> StartedTurn:
        """Take the message out of the queue and start its turn (the caller holds the lock)."""
        queue = await self._store.queued(handle.record.id)
        record = next(q for q in queue if q.id == queued_id)
        await self.save(handle.record.id, [q for q in queue if q.id != queued_id])
        params = TurnStartParams.model_validate(
            {
                "threadId": handle.record.id,
                "input": record.input,
                "clientUserMessageId": record.client_user_message_id,
            }
        )
        settings = turn_options.apply(self._config(), turn_settings(handle.settings, params), params)
        return await handle.start_turn(record.input, record.client_user_message_id, settings)

    # ---- the drain after a completed turn --------------------------------------------------------

    def attach(self, handle: ThreadHandle) -> None:
        if handle.created_here:  # a new thread's queue is empty: its first drain need not read it
            self._empty.add(handle)
        if not handle.ephemeral:
            handle.add_listener(self._on_event)

    def _on_event(self, event: ThreadEvent) -> None:
        if event.spec is sm.TURN_COMPLETED and event.params.get("turn", {}).get("status") == "completed":
            task = asyncio.get_running_loop().create_task(self._drain(event.thread_id))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _drain(self, thread_id: str) -> None:
        try:
            async with self.lock(thread_id):
                handle = self._threads.get(thread_id)
                if handle is None or handle.running or handle in self._empty:
                    return
                queue = await self._store.queued(thread_id)
                if not queue:
                    self._empty.add(handle)
                    return
                started = await self._start(handle, queue[0].id)
            started.release()
        except (StoreError, InvalidRequest) as exc:  # a background start: logged, never raised
            _log.warning("queue.start_failed", thread_id=thread_id, error=str(exc))
