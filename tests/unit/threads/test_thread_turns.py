"""Turns of one thread, in-process: a real session, SQLite store and HTTP fake model; no daemon."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tether_server.core.session import SessionDeps
from tether_server.core.settings import TurnSettings
from tether_server.errors import Conflict
from tether_server.processor import projection
from tether_server.providers.base import ProviderSettings
from tether_server.providers.responses import ResponsesProvider
from tether_server.store.base import ThreadRecord
from tether_server.store.sqlite import SqliteThreadStore
from tether_server.threads.handle import ThreadEvent, ThreadHandle
from tether_server.threads.manager import ThreadManager
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

TEXT = [{"type": "text", "text": "hi", "text_elements": []}]


def _no_sandboxed_commands(*_: Any) -> Any:
    raise AssertionError("the model runs no command in these tests")


@dataclass
class Thread:
    handle: ThreadHandle
    settings: TurnSettings
    store: SqliteThreadStore
    events: list[ThreadEvent] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    def on_event(self, event: ThreadEvent) -> None:
        self.events.append(event)
        self.arrived.set()

    async def until(self, done: Callable[[list[ThreadEvent]], bool], within_s: float = 10.0) -> None:
        async with asyncio.timeout(within_s):
            while not done(self.events):
                self.arrived.clear()
                await self.arrived.wait()

    def of(self, method: str) -> list[dict[str, Any]]:
        return [e.params for e in self.events if e.method == method]


@pytest.fixture
async def thread(tmp_path: Path, fake_model: FakeResponsesServer) -> AsyncIterator[Thread]:
    store = SqliteThreadStore(tmp_path / "tether.sqlite")
    await store.open()
    provider = ResponsesProvider(ProviderSettings("fake", fake_model.base_url, stream_max_retries=0))
    deps = SessionDeps(
        provider_for=lambda _id: provider,
        home=None,
        agents_max_bytes=0,
        stream_max_retries=0,
        context_window=None,
        gate=_no_sandboxed_commands,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        item_json=projection.item_json,
        allow_login_shell=False,
    )
    workdir = tmp_path / "project"
    workdir.mkdir()
    settings = TurnSettings(cwd=str(workdir), model="gpt-test", model_provider="fake")
    record = ThreadRecord("thread-1", 1, 1, 1, str(workdir), "gpt-test", "fake")
    handle = ThreadManager(store, deps, projection.notification).create(record, settings, ephemeral=False)
    subject = Thread(handle, settings, store)
    handle.add_listener(subject.on_event)
    yield subject
    await handle.stop_turn()
    await handle.close_processes()
    await provider.aclose()
    await store.close()


def _shell_done(thread: Thread) -> Callable[[list[ThreadEvent]], bool]:
    return lambda _: any(p["item"].get("source") == "userShell" for p in thread.of("item/completed"))


def _turn_done(events: list[ThreadEvent]) -> bool:
    return any(e.method == "turn/completed" for e in events)


async def test_while_a_turn_runs_input_steers_into_it_a_shell_joins_it_and_compaction_waits(
    thread: Thread, fake_model: FakeResponsesServer
) -> None:
    fake_model.add(script.reply(script.gated("hold"), script.message("first")), script.text_reply("second"))
    turn_id, release = await thread.handle.start_turn(TEXT, "c-1", thread.settings)
    release()
    await fake_model.wait_for_gate("hold")

    with pytest.raises(Conflict):
        thread.handle.start_compact()
    assert (await thread.handle.start_turn(TEXT, "c-2", thread.settings))[0] == turn_id
    thread.handle.shell_command("echo inside", None)
    await thread.until(
        lambda _: any(p["item"].get("source") == "userShell" for p in thread.of("item/completed"))
    )
    fake_model.release("hold")
    await thread.until(_turn_done)

    assert [p["turn"]["id"] for p in thread.of("turn/started")] == [turn_id]
    [done] = thread.of("turn/completed")
    assert done["turn"]["id"] == turn_id and done["turn"]["status"] == "completed"
    assert done["turn"]["items"][0]["text"] == "second"
    completed = thread.of("item/completed")
    assert {p["turnId"] for p in completed} == {turn_id}
    kinds = [(p["item"]["type"], p["item"].get("clientId") or p["item"].get("source")) for p in completed]
    assert ("commandExecution", "userShell") in kinds
    assert [k for k in kinds if k[0] == "userMessage"] == [("userMessage", "c-1"), ("userMessage", "c-2")]
    assert len(fake_model.requests) == 2  # the steered input made the model answer again

    stored = await thread.store.load_thread("thread-1")
    assert stored is not None
    assert [(t.turn_id, t.status) for t in stored.turns] == [(turn_id, "completed")]
    assert len(stored.items) == len(completed)


async def test_compaction_and_a_shell_command_each_run_as_a_turn_of_their_own(
    thread: Thread, fake_model: FakeResponsesServer
) -> None:
    fake_model.add(script.text_reply("handoff note"))
    thread.handle.start_compact()
    await thread.until(_turn_done)
    thread.handle.shell_command("echo alone", None)
    await thread.until(lambda evs: len([e for e in evs if e.method == "turn/completed"]) == 2)

    started = [p["turn"]["id"] for p in thread.of("turn/started")]
    completed = [p["turn"]["id"] for p in thread.of("turn/completed")]
    assert len(set(started)) == 2 and completed == started
    items = [(p["turnId"], p["item"]["type"]) for p in thread.of("item/completed")]
    assert items == [(started[0], "contextCompaction"), (started[1], "commandExecution")]
    assert thread.of("warning")  # the user is told the model now works from a summary
    with pytest.raises(Conflict):
        thread.handle.shell_command("   ", None)
