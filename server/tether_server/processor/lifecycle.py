"""Unloading idle threads, resuming with overrides, and closing turns a crash left open."""

from __future__ import annotations

import asyncio

from tether_server import log
from tether_server.core import events as ev
from tether_server.core.settings import TurnSettings
from tether_server.processor.state import ServerState
from tether_server.store.base import Batch
from tether_server.threads.handle import ThreadHandle

_log = log.get("tether.lifecycle")


class IdleUnloader:
    """A thread with no subscribers and no running turn unloads after `delay_s` (Codex: 60 s).

    Subscribing again (thread/resume) cancels the countdown; a running turn postpones it.
    """

    def __init__(self, state: ServerState, delay_s: float) -> None:
        self._state = state
        self._delay = delay_s
        self._timers: dict[str, asyncio.Task[None]] = {}

    def on_idle(self, thread_id: str) -> None:
        self.cancel(thread_id)
        self._timers[thread_id] = asyncio.get_running_loop().create_task(self._countdown(thread_id))

    def cancel(self, thread_id: str) -> None:
        timer = self._timers.pop(thread_id, None)
        if timer is not None and timer is not asyncio.current_task():
            timer.cancel()

    async def _countdown(self, thread_id: str) -> None:
        while True:
            await asyncio.sleep(self._delay)
            handle = self._state.threads.get(thread_id)
            if handle is None or self._state.subscriptions.subscribers(thread_id):
                break
            if handle.running:
                await handle.wait_idle()
                continue
            await unload(self._state, handle)
            break
        self._timers.pop(thread_id, None)

    def shutdown(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()


async def unload(state: ServerState, handle: ThreadHandle) -> None:
    thread_id = handle.thread_id
    await handle.set_status(ev.NOT_LOADED)
    await handle.emit(ev.ThreadClosed(thread_id))
    await state.threads.unload(thread_id)
    state.subscriptions.forget(thread_id)
    _log.info("thread.unloaded", thread_id=thread_id)


async def apply_resumed(state: ServerState, handle: ThreadHandle, settings: TurnSettings) -> None:
    """Settings a resume overrode: the next turns run with them, and they are stored at once, as
    Codex stores them (a later plain resume, even in another daemon, keeps them). The base
    instructions are the exception: Codex keeps those of the thread's start on disk, so an
    override holds while the thread stays loaded (`open_turn` keeps the stored ones too)."""
    handle.update_settings(settings)
    record = handle.record
    record.model, record.model_provider, record.cwd = settings.model, settings.model_provider, settings.cwd
    record.settings = {**settings.to_json(), "baseInstructions": record.settings.get("baseInstructions")}
    if not handle.ephemeral:
        await state.store.commit(Batch(thread=record))


async def announce_recovered(state: ServerState, handle: ThreadHandle) -> None:
    """Tell the (first) subscriber about turns a crash left open; they were closed as interrupted."""
    for turn in state.recovered.pop(handle.thread_id, []):
        handle.note_interrupted(turn.turn_id)
        done = ev.TurnCompleted(
            handle.thread_id,
            turn.turn_id,
            "interrupted",
            turn.started_at,
            turn.completed_at,
            turn.duration_ms,
        )
        await handle.emit(done)
