"""ThreadManager: thread id → loaded ThreadHandle; creating, loading and unloading threads."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from tether_protocol.server_methods import THREAD_CLOSED
from tether_server import heap, log
from tether_server.core.events import SYSTEM_ERROR
from tether_server.core.session import SessionDeps, ThreadSession
from tether_server.core.settings import TurnSettings
from tether_server.store.base import Batch, StoreError, ThreadRecord, ThreadStore, TurnRecord
from tether_server.threads.handle import Project, ThreadHandle
from tether_server.threads.ownership import Ownership

_log = log.get("tether.threads")

# Deltas and lazy events are numbered and sent without a write, so a thread whose last run did
# not end with its (durable) thread/closed may have sent seqs above the stored last_seq. Numbering
# resumes this far above it: a reused seq would be dropped as a duplicate by a client that saw
# the lost one, and skipped by a resume with afterSeq. No run sends this many unstored events.
SEQ_GAP_AFTER_UNCLEAN_END = 1_000_000


@dataclass
class ThreadOpened:
    handle: ThreadHandle
    loaded_now: bool


class ThreadManager:
    def __init__(
        self,
        store: ThreadStore,
        deps: SessionDeps,
        project: Project,
        loaded: dict[str, ThreadHandle] | None = None,
        ownership: Ownership | None = None,
    ) -> None:
        """`loaded` is the id → handle map this manager keeps; pass one to share a read view of it.
        `project` is the processor's projection, which every handle uses for its events."""
        self.store = store
        self.deps = deps
        self._project = project
        self._loaded: dict[str, ThreadHandle] = {} if loaded is None else loaded
        self.on_loaded: list[Callable[[ThreadHandle], None]] = []
        self.ownership = ownership  # a fleet node's leases (PostgreSQL store); None on SQLite
        # Turns closed as interrupted when this node took their thread over; announced on resume.
        self.recovered: dict[str, list[TurnRecord]] = {}

    def get(self, thread_id: str) -> ThreadHandle | None:
        return self._loaded.get(thread_id)

    def loaded_ids(self) -> list[str]:
        return list(self._loaded)

    def handles(self) -> list[ThreadHandle]:
        return list(self._loaded.values())

    def _register(self, handle: ThreadHandle) -> None:
        self._loaded[handle.thread_id] = handle
        for hook in self.on_loaded:
            hook(handle)

    def create(self, record: ThreadRecord, settings: TurnSettings, *, ephemeral: bool) -> ThreadHandle:
        handle = ThreadHandle(self.store, self._project, ephemeral=ephemeral)
        handle.created_here = True
        handle.attach(ThreadSession(record, settings, handle, self.deps, ephemeral=ephemeral))
        if self.ownership is not None and not ephemeral:
            self.ownership.created(record.id)
        self._register(handle)
        return handle

    async def open(self, thread_id: str) -> ThreadOpened | None:
        """The loaded handle, or load it from the store; None when the store has no such thread."""
        handle = self._loaded.get(thread_id)
        if handle is not None:
            return ThreadOpened(handle, loaded_now=False)
        if self.ownership is not None:
            if await self.store.get_thread(thread_id) is None:
                return None
            taken = await self.ownership.claim(thread_id)  # raises OwnedElsewhere
            if taken:
                self.recovered.setdefault(thread_id, []).extend(taken)
        with heap.collection_paused():  # a long history: many rows, no cycles
            loaded = await self.store.load_session(thread_id)
        if loaded is None:
            return None
        handle = self._loaded.get(thread_id)  # another request may have loaded it meanwhile
        if handle is not None:
            return ThreadOpened(handle, loaded_now=False)
        record = loaded.record
        settings = (
            TurnSettings.from_json(record.settings)
            if record.settings
            else TurnSettings(cwd=record.cwd, model=record.model, model_provider=record.model_provider)
        )
        handle = ThreadHandle(self.store, self._project, last_seq=await self._resume_seq(record))
        handle.attach(
            ThreadSession(
                record,
                settings,
                handle,
                self.deps,
                history=loaded.history,
                turn_count=loaded.turn_count,
                item_count=loaded.item_count,
            )
        )
        self._register(handle)
        return ThreadOpened(handle, loaded_now=True)

    async def _resume_seq(self, record: ThreadRecord) -> int:
        """Where the loaded thread's seq numbering goes on (see SEQ_GAP_AFTER_UNCLEAN_END)."""
        last = await self.store.read_events(record.id, record.last_seq - 1, limit=1)
        if last and last[0].seq == record.last_seq and last[0].method == THREAD_CLOSED.name:
            return record.last_seq
        # Stored before any event goes out: a crash before this run stores one of its own must not
        # leave the next run numbering from the same stored seq, over what this one sent.
        record.last_seq += SEQ_GAP_AFTER_UNCLEAN_END
        await self.store.commit(Batch(thread=record))
        return record.last_seq

    async def unload(self, thread_id: str) -> ThreadHandle | None:
        handle = self._loaded.pop(thread_id, None)
        if handle is not None:
            await handle.close_processes()
            await handle.end_session()
        if self.ownership is not None:
            await self.ownership.release(thread_id)
        return handle

    async def lose(self, thread_id: str) -> None:
        """Another node took the thread over: stop its turn (whose writes are refused) and unload it."""
        handle = self._loaded.pop(thread_id, None)
        if handle is None:
            return
        try:
            await handle.stop_turn()
            await handle.close_processes()
            # Its clients learn the thread is no longer served here, whichever write failed first.
            await handle.set_status(SYSTEM_ERROR)
        except StoreError as exc:  # a refused write ends the turn; it must not stop the unload
            _log.warning("thread.lost_unload_failed", thread_id=thread_id, error=str(exc))
        _log.warning("thread.unloaded_lease_lost", thread_id=thread_id)

    async def shutdown(self) -> None:
        # A turn still running as the daemon stops (stdin EOF mid-turn) is recorded as interrupted
        # now: left in progress, the store would show it running until the next start recovers it.
        handles = list(self._loaded.values())
        stopped = await asyncio.gather(*(h.stop_turn() for h in handles), return_exceptions=True)
        for handle, outcome in zip(handles, stopped, strict=True):
            if isinstance(outcome, Exception):
                _log.warning("thread.stop_at_shutdown_failed", thread_id=handle.thread_id, error=str(outcome))
        for thread_id in list(self._loaded):
            await self.unload(thread_id)
