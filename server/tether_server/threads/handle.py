"""ThreadHandle: one loaded thread — its session, its event log (seq), and its listeners."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from tether_server import log
from tether_server.core.ids import now_ms
from tether_server.core.session import ThreadSession
from tether_server.store.base import Batch, EventRecord, ThreadStore

_log = log.get("tether.threads")


@dataclass(frozen=True)
class ThreadEvent:
    thread_id: str
    seq: int
    method: str
    params: dict[str, Any]
    emitted_at_ms: int
    durable: bool


Listener = Callable[[ThreadEvent], None]

# Events that announce a start or a state, not a completion: they are logged with the next commit
# instead of forcing one (a plain turn costs three commits instead of nine).
LAZY_METHODS = frozenset(
    {
        "thread/status/changed",
        "turn/started",
        "item/started",
        "thread/tokenUsage/updated",
        "turn/diff/updated",
        "turn/plan/updated",
        "warning",
        "item/autoApprovalReview/started",
    }
)


class ThreadHandle:
    """Implements the core's EventSink: every event gets the next `seq`; durable ones are committed
    to the store (with the session's pending batch) before any listener sees them."""

    def __init__(
        self, store: ThreadStore, *, last_seq: int = 0, ring_size: int = 20_000, ephemeral: bool = False
    ) -> None:
        self._store = store
        self._seq = last_seq
        self._ring: deque[ThreadEvent] = deque(maxlen=ring_size)
        self._listeners: list[Listener] = []
        self.ephemeral = ephemeral
        self._commit_lock = asyncio.Lock()
        self._held: list[tuple[str, dict[str, Any], bool]] = []
        self._lazy: list[EventRecord] = []
        self.session: ThreadSession  # set by the manager right after construction

    @property
    def thread_id(self) -> str:
        return self.session.record.id

    @property
    def last_seq(self) -> int:
        return self._seq

    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def _next(self, method: str, params: dict[str, Any], durable: bool) -> ThreadEvent:
        self._seq += 1
        return ThreadEvent(self.session.record.id, self._seq, method, params, now_ms(), durable)

    def _publish(self, event: ThreadEvent) -> None:
        self._ring.append(event)
        for listener in list(self._listeners):
            listener(event)

    async def emit(self, method: str, params: dict[str, Any], *, batch: Batch | None = None) -> None:
        if method in LAZY_METHODS and batch is None:
            self._emit_lazy(method, params)
            return
        # One durable event at a time, and deltas raised meanwhile wait behind it, so that seq
        # order is publish order (clients resuming with afterSeq rely on it).
        async with self._commit_lock:
            try:
                await self._commit_and_publish(method, params, batch)
            finally:
                held, self._held = self._held, []
                for held_method, held_params, lazy in held:
                    if lazy:
                        self._publish_lazy(held_method, held_params)
                    else:
                        self._publish(self._next(held_method, held_params, durable=False))

    async def _commit_and_publish(self, method: str, params: dict[str, Any], batch: Batch | None) -> None:
        event = self._next(method, params, durable=True)
        if not self.ephemeral and self.session.materialized:
            pending = self.session.take_batch() or Batch()
            if batch is not None:
                _merge(pending, batch)
            pending.events.extend(self._lazy)
            pending.events.append(
                EventRecord(event.thread_id, event.seq, method, params, event.emitted_at_ms)
            )
            if pending.thread is None:
                pending.thread = self.session.record
            self.session.record.last_seq = event.seq
            cancelled = await _commit_to_the_end(self._store.commit(pending))
            self._lazy = []
            self._publish(event)
            if cancelled:
                raise asyncio.CancelledError
            return
        self._lazy = []
        self._publish(event)

    def _emit_lazy(self, method: str, params: dict[str, Any]) -> None:
        if self._commit_lock.locked():
            self._held.append((method, params, True))
            return
        self._publish_lazy(method, params)

    def _publish_lazy(self, method: str, params: dict[str, Any]) -> None:
        """Sent now, written with the next commit: losing it in a crash loses nothing reported complete."""
        event = self._next(method, params, durable=True)
        if not self.ephemeral and self.session.materialized:
            self._lazy.append(EventRecord(event.thread_id, event.seq, method, params, event.emitted_at_ms))
        self._publish(event)

    def emit_transient(self, method: str, params: dict[str, Any]) -> None:
        if self._commit_lock.locked():
            self._held.append((method, params, False))
            return
        self._publish(self._next(method, params, durable=False))

    def ring_after(self, seq: int) -> list[ThreadEvent]:
        """Whatever the in-memory ring still holds after `seq` (possibly not reaching back to it)."""
        return [e for e in self._ring if e.seq > seq]


def _merge(into: Batch, other: Batch) -> None:
    if other.thread is not None:
        into.thread = other.thread
    into.turns.extend(other.turns)
    into.items.extend(other.items)
    into.history.extend(other.history)
    into.events.extend(other.events)


async def _commit_to_the_end(commit: Coroutine[Any, Any, None]) -> bool:
    """Run a commit to completion even if the caller is cancelled meanwhile (an interrupt).

    A commit abandoned half-way would leave the log ambiguous: written on the database thread but
    not known to be. Returns whether a cancellation arrived; the caller re-raises it afterwards.
    """
    task = asyncio.ensure_future(commit)
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            cancelled = True
    task.result()
    return cancelled
