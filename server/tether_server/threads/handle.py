"""ThreadHandle: one loaded thread — its session, its event log (seq), and its listeners.

The handle is the only way into a thread: the processor calls its methods, never the session
behind it. The session reports through the handle (the core's EventSink), which projects each
event to its wire form, numbers it and commits or publishes it according to its durability.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, NamedTuple

from tether_protocol.methods import SERVER_NOTIFICATIONS
from tether_protocol.spec import AnyNotificationSpec, WireParams
from tether_server import log, metrics
from tether_server.core import turn_hooks
from tether_server.core.dynamic_calls import DynamicTools
from tether_server.core.events import CoreEvent, Durability, ThreadStatus
from tether_server.core.ids import now_ms
from tether_server.core.review_mode import ReviewJob
from tether_server.core.session import ThreadSession
from tether_server.core.settings import TurnSettings
from tether_server.core.turn_scope import ActiveTurn
from tether_server.store.base import Batch, EventRecord, ThreadRecord, ThreadStore
from tether_server.tools.exec.sessions import ProcessSessions

_log = log.get("tether.threads")


class ThreadEvent(NamedTuple):
    """One numbered event as the thread's listeners and its ring get it (shared: never changed).

    A named tuple rather than a frozen dataclass: one is built per streamed delta, and a frozen
    dataclass's ``__init__`` costs several times as much.
    """

    thread_id: str
    seq: int
    spec: AnyNotificationSpec
    params: dict[str, Any]
    emitted_at_ms: int
    durable: bool

    @property
    def method(self) -> str:
        return self.spec.name

    @classmethod
    def replayed(cls, record: EventRecord) -> ThreadEvent:
        """A stored event, to send again; every stored name came from the projection's specs."""
        return cls(
            record.thread_id,
            record.seq,
            SERVER_NOTIFICATIONS[record.method],
            record.params,
            record.emitted_at_ms,
            True,
        )


Listener = Callable[[ThreadEvent], None]
ManyListener = Callable[[list[ThreadEvent]], None]

Project = Callable[[CoreEvent], tuple[AnyNotificationSpec, WireParams[Any]]]
"""Core event → (notification spec, params); the processor's projection, injected at composition."""


class StartedTurn(NamedTuple):
    """A turn on disk but held: `release` lets it run (after the client has been answered)."""

    id: str
    release: Callable[[], None]


class ThreadHandle:
    """Implements the core's EventSink: every event gets the next `seq`; durable ones are committed
    to the store (with the session's pending batch) before any listener sees them."""

    def __init__(
        self,
        store: ThreadStore,
        project: Project,
        *,
        last_seq: int = 0,
        ring_size: int = 20_000,
        ephemeral: bool = False,
    ) -> None:
        self._store = store
        self._project = project
        # Created by this daemon (`ThreadManager.create`), not read back: nothing else of it is
        # stored yet (no goal, no queue), which the processor's books need not read to know.
        self.created_here = False
        self._seq = last_seq
        self._ring: deque[ThreadEvent] = deque(maxlen=ring_size)
        self._listeners: list[tuple[Listener, ManyListener | None]] = []
        self.ephemeral = ephemeral
        self._commit_lock = asyncio.Lock()
        self._held: list[tuple[AnyNotificationSpec, WireParams[Any], bool]] = []
        self._lazy: list[EventRecord] = []
        self._session: ThreadSession | None = None
        self._thread_id = ""

    def attach(self, session: ThreadSession) -> None:
        """Bind the session (it is built with this handle as its sink, hence after the handle)."""
        self._session = session
        self._thread_id = session.thread_id

    @property
    def _s(self) -> ThreadSession:
        assert self._session is not None, "ThreadHandle used before its session was attached"
        return self._session

    # ---- the thread, for the processor ----------------------------------------------------------

    @property
    def thread_id(self) -> str:
        return self._s.thread_id

    @property
    def record(self) -> ThreadRecord:
        return self._s.record

    @property
    def status(self) -> ThreadStatus:
        return self._s.status

    @property
    def settings(self) -> TurnSettings:
        return self._s.settings

    def update_settings(self, settings: TurnSettings) -> None:
        """Settings for the next model requests (`thread/settings/update`), as a steer's overrides."""
        self._s.settings = settings

    @property
    def running(self) -> bool:
        """Whether a turn is active."""
        return self._s.active is not None

    async def set_status(self, status: ThreadStatus) -> None:
        await self._s.set_status(status)

    async def start_turn(
        self,
        content: list[dict[str, Any]],
        client_id: str | None,
        settings: TurnSettings,
        output_schema: dict[str, Any] | None = None,
    ) -> StartedTurn:
        """Start a turn, or steer into the active one; returns the turn's id and its release.

        A new turn is on disk (in progress) before this returns, so a turn a client was told
        about survives a crash (it is closed as interrupted on restart). It runs once `release`
        is called, which the caller does after answering, so the answer precedes its events.
        """
        turn, new = self._s.start_turn(content, client_id, settings, output_schema, released=False)
        if not new:
            return StartedTurn(turn.id, _nothing)
        return await self._commit_or_abort(turn)

    def start_goal_turn(self, note: str) -> str:
        """Start a turn that works on the thread's active goal (`note` tells the model); its id."""
        return self._s.start_goal_turn(note).id

    def publish(self, spec: AnyNotificationSpec, params: WireParams[Any]) -> None:
        """A notification about the thread from outside the core, in order with its events; not written."""
        if self._commit_lock.locked():
            self._held.append((spec, params, False))
            return
        self._publish(self._next(spec, params, durable=False))

    def steer(self, content: list[dict[str, Any]], expected_turn_id: str, client_id: str | None) -> str:
        return self._s.steer(content, expected_turn_id, client_id)

    def interrupt(self, turn_id: str | None) -> None:
        self._s.interrupt(turn_id)

    async def stop_turn(self) -> None:
        """Interrupt the active turn, if any, and wait until it has finished."""
        if self._s.active is not None:
            self._s.interrupt(None)
            await self._s.wait_idle()

    async def wait_idle(self) -> None:
        await self._s.wait_idle()

    def shell_command(self, command: str, timeout_ms: int | None) -> None:
        self._s.shell_command(command, timeout_ms)

    def start_compact(self) -> None:
        self._s.start_compact()

    async def start_review(self, job: ReviewJob) -> StartedTurn:
        """Start a review turn; returns its id and its release (as `start_turn` does)."""
        return await self._commit_or_abort(self._s.start_review(job, released=False))

    async def _commit_or_abort(self, turn: ActiveTurn) -> StartedTurn:
        """Make a new, still held turn durable, or abort it: a turn the client is not told about
        must not run. Its release is the caller's, to call once the client has its answer."""
        try:
            await self._commit()
        except BaseException:
            aborted = self._s.interrupt(turn.id)
            turn.released.set()
            # Over before the refusal is answered: a turn/start that came while it was still
            # winding down would be steered into it and end with it, interrupted.
            await asyncio.wait({aborted})
            raise
        return StartedTurn(turn.id, turn.released.set)

    def note_interrupted(self, turn_id: str) -> None:
        """Tell the model that a turn was cut short (a crash left it open)."""
        self._s.note_interrupted(turn_id)

    def set_dynamic_tools(self, tools: DynamicTools) -> None:
        """The tools the creating client declared; the next request offers them to the model."""
        self._s.dynamic = tools

    def replace_history(self, history: list[dict[str, Any]]) -> None:
        self._s.recorder.replace_history(history)

    async def inject_history(self, items: list[dict[str, Any]]) -> None:
        """Append raw model-history items (`thread/inject_items`): the model sees them next.

        Idle, they are durable on return (or, before the thread's first turn, written with it);
        during a turn they ride that turn's next commit, so its items and their events stay together.
        """
        recorder = self._s.recorder
        for item in items:
            recorder.history_entry("", item)
        if not self.running:
            await self._commit()

    async def close_processes(self) -> None:
        await self._s.processes.close()
        if self._s.deps.shell_snapshots is not None:
            self._s.deps.shell_snapshots.drop(self._s.thread_id)

    async def end_session(self) -> None:
        """The thread's SessionEnd hooks, as it is unloaded."""
        await turn_hooks.session_end(self._s)

    @property
    def processes(self) -> ProcessSessions:
        """The thread's commands that outlived their call (background terminals), to list or end."""
        return self._s.processes

    # ---- the event log --------------------------------------------------------------------------

    @property
    def last_seq(self) -> int:
        return self._seq

    # The list is replaced, never changed in place, so that `_publish` iterates it without a copy
    # even when a listener adds or removes one.
    def add_listener(self, listener: Listener, many: ManyListener | None = None) -> None:
        """`listener` gets each event; `many`, if given, gets a run of deltas in one call instead."""
        self._listeners = [*self._listeners, (listener, many)]

    def remove_listener(self, listener: Listener) -> None:
        self._listeners = [pair for pair in self._listeners if pair[0] != listener]

    def _next(self, spec: AnyNotificationSpec, params: WireParams[Any], durable: bool) -> ThreadEvent:
        self._seq += 1
        return ThreadEvent(self._thread_id, self._seq, spec, params, now_ms(), durable)

    def _publish(self, event: ThreadEvent) -> None:
        self._ring.append(event)
        for listener, _ in self._listeners:
            listener(event)

    def _publish_many(self, events: list[ThreadEvent]) -> None:
        self._ring.extend(events)
        for listener, many in self._listeners:
            if many is not None:
                many(events)
            else:
                for event in events:
                    listener(event)

    async def emit(self, event: CoreEvent) -> None:
        if event.durability is Durability.EPHEMERAL:
            self.emit_delta(event)
            return
        spec, params = self._project(event)
        if event.durability is Durability.LAZY:
            self._emit_lazy(spec, params)
            return
        await self._commit((spec, params))

    def _release_held(self) -> None:
        held, self._held = self._held, []
        for held_spec, held_params, lazy in held:
            if lazy:
                self._publish_lazy(held_spec, held_params)
            else:
                self._publish(self._next(held_spec, held_params, durable=False))

    async def _commit(self, announce: tuple[AnyNotificationSpec, WireParams[Any]] | None = None) -> None:
        """Commit the session's pending batch, the lazy events sent since the last commit and the
        durable event `announce` (if any) in one transaction; only then publish that event.

        One commit at a time, and deltas raised meanwhile wait behind it, so that seq order is
        publish order (clients resuming with afterSeq rely on it). A cancellation that arrives
        meanwhile is re-raised once the commit is done and the event published.
        """
        async with self._commit_lock:
            try:
                event = None if announce is None else self._next(*announce, durable=True)
                recorder = self._s.recorder
                cancelled = False
                if not self.ephemeral and recorder.materialized:
                    pending = recorder.take_batch() or Batch()
                    pending.events.extend(self._lazy)
                    if event is not None:
                        pending.events.append(
                            EventRecord(
                                event.thread_id, event.seq, event.method, event.params, event.emitted_at_ms
                            )
                        )
                        recorder.record.last_seq = event.seq
                    if pending.thread is None:
                        pending.thread = recorder.record
                    cancelled = await _commit_to_the_end(self._store.commit(pending))
                self._lazy = []
                if event is not None:
                    self._publish(event)
                if cancelled:
                    raise asyncio.CancelledError
            finally:
                self._release_held()

    def _emit_lazy(self, spec: AnyNotificationSpec, params: WireParams[Any]) -> None:
        if self._commit_lock.locked():
            self._held.append((spec, params, True))
            return
        self._publish_lazy(spec, params)

    def _publish_lazy(self, spec: AnyNotificationSpec, params: WireParams[Any]) -> None:
        """Sent now, written with the next commit: losing it in a crash loses nothing reported complete."""
        event = self._next(spec, params, durable=True)
        if not self.ephemeral and self._s.recorder.materialized:
            self._lazy.append(EventRecord(event.thread_id, event.seq, spec.name, params, event.emitted_at_ms))
        self._publish(event)

    def emit_delta(self, event: CoreEvent) -> None:
        """An ephemeral event from synchronous code: numbered and fanned out, never written."""
        spec, params = self._project(event)
        if self._commit_lock.locked():
            self._held.append((spec, params, False))
            return
        self._publish(self._next(spec, params, durable=False))

    def emit_deltas(self, events: Sequence[CoreEvent]) -> None:
        """`emit_delta` for each of `events`; numbered together and fanned out as one run."""
        project = self._project
        if self._commit_lock.locked():
            self._held.extend((*project(event), False) for event in events)
            return
        thread_id, seq, when = self._thread_id, self._seq, now_ms()
        numbered: list[ThreadEvent] = []
        for event in events:
            seq += 1
            spec, params = project(event)
            numbered.append(ThreadEvent(thread_id, seq, spec, params, when, False))
        self._seq = seq
        self._publish_many(numbered)

    def ring_after(self, seq: int) -> list[ThreadEvent]:
        """Whatever the in-memory ring still holds after `seq` (possibly not reaching back to it)."""
        return [e for e in self._ring if e.seq > seq]


async def _commit_to_the_end(commit: Coroutine[Any, Any, None]) -> bool:
    """Run a commit to completion even if the caller is cancelled meanwhile (an interrupt).

    A commit abandoned half-way would leave the log ambiguous: written on the database thread but
    not known to be. Returns whether a cancellation arrived; the caller re-raises it afterwards.
    """
    task = asyncio.ensure_future(commit)
    cancelled = False
    with metrics.store_commit():
        while not task.done():
            try:
                await asyncio.shield(task)
            except asyncio.CancelledError:
                cancelled = True
    task.result()
    return cancelled


def _nothing() -> None:
    """The release of a steer: the running turn picks the input up by itself."""
