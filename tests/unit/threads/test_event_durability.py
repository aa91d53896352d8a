"""The thread handle writes each core event as its durability says, on a real SQLite store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tether_server.core import events as ev
from tether_server.core import items
from tether_server.core.session import SessionDeps
from tether_server.core.settings import TurnSettings
from tether_server.processor import projection
from tether_server.store.base import ThreadRecord
from tether_server.store.sqlite import SqliteThreadStore
from tether_server.threads.handle import ThreadEvent, ThreadHandle
from tether_server.threads.manager import ThreadManager

TURN = "turn-1"


def _no_commands(*_: Any) -> Any:
    raise AssertionError("no command runs in these tests")


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteThreadStore]:
    store = SqliteThreadStore(tmp_path / "tether.sqlite")
    await store.open()
    yield store
    await store.close()


def _manager(store: SqliteThreadStore) -> ThreadManager:
    deps = SessionDeps(
        provider_for=_no_commands,
        home=None,
        agents_max_bytes=0,
        stream_max_retries=0,
        context_window=None,
        gate=_no_commands,
        env={},
        item_json=projection.item_json,
    )
    return ThreadManager(store, deps, projection.notification)


def _open(store: SqliteThreadStore, thread_id: str, *, ephemeral: bool = False) -> ThreadHandle:
    threads = _manager(store)
    # A preview means the thread has content, so it is written (an empty new thread is not).
    record = ThreadRecord(thread_id, 1, 1, 1, "/tmp", "m", "fake", preview="hello")
    return threads.create(
        record, TurnSettings(cwd="/tmp", model="m", model_provider="fake"), ephemeral=ephemeral
    )


async def test_lazy_waits_for_the_next_commit_deltas_are_never_written(store: SqliteThreadStore) -> None:
    handle = _open(store, "t-1")
    seen: list[ThreadEvent] = []
    handle.add_listener(seen.append)
    item = items.AgentMessage("msg-1", "", 10)

    await handle.emit(ev.ItemStarted("t-1", TURN, item))
    handle.emit_delta(ev.AgentMessageDelta("t-1", TURN, "msg-1", "hi"))
    assert [(e.seq, e.method) for e in seen] == [(1, "item/started"), (2, "item/agentMessage/delta")]
    assert await store.read_events("t-1", 0) == []

    item.text, item.completed_at_ms = "hi", 20
    await handle.emit(ev.ItemCompleted("t-1", TURN, item))
    stored = await store.read_events("t-1", 0)
    assert [(e.seq, e.method) for e in stored] == [(1, "item/started"), (3, "item/completed")]
    assert stored[0].params["item"]["text"] == ""  # as it was announced, not as it ended
    assert seen[-1].seq == 3 and seen[-1].durable
    assert not seen[1].durable


async def test_a_durable_event_is_stored_before_anyone_sees_it(store: SqliteThreadStore) -> None:
    handle = _open(store, "t-2")
    committed_when_seen: list[int] = []
    handle.add_listener(lambda e: committed_when_seen.append(handle.record.last_seq))
    await handle.emit(ev.ThreadWarning("t-2", "lazy"))
    await handle.emit(ev.TurnCompleted("t-2", TURN, "completed", 1, 2, 5))
    # The lazy warning went out before any commit; the turn's completion only once written.
    assert committed_when_seen == [0, 2]
    assert [e.method for e in await store.read_events("t-2", 0)] == ["warning", "turn/completed"]


async def test_an_ephemeral_thread_writes_nothing(store: SqliteThreadStore) -> None:
    handle = _open(store, "t-3", ephemeral=True)
    seen: list[str] = []
    handle.add_listener(lambda e: seen.append(e.method))
    await handle.emit(ev.TurnCompleted("t-3", TURN, "completed", 1, 2, 5))
    assert seen == ["turn/completed"]
    assert await store.read_events("t-3", 0) == []
    assert await store.get_thread("t-3") is None


async def test_a_run_of_deltas_keeps_seq_order_and_waits_behind_a_commit(store: SqliteThreadStore) -> None:
    handle = _open(store, "t-4")
    one: list[tuple[int, str]] = []
    runs: list[list[int]] = []
    handle.add_listener(lambda e: one.append((e.seq, e.method)))  # a listener without a run form
    handle.add_listener(lambda e: runs.append([e.seq]), lambda events: runs.append([e.seq for e in events]))

    def raise_more(event: ThreadEvent) -> None:
        # turn/completed is published under the commit lock: a run raised now is held behind it.
        if event.method == "turn/completed":
            handle.emit_deltas([ev.AgentMessageDelta("t-4", TURN, "msg-1", text) for text in ("c", "d")])

    handle.add_listener(raise_more)
    handle.emit_deltas([ev.AgentMessageDelta("t-4", TURN, "msg-1", text) for text in ("a", "b")])
    await handle.emit(ev.TurnCompleted("t-4", TURN, "completed", 1, 2, 5))

    delta = "item/agentMessage/delta"
    assert one == [(1, delta), (2, delta), (3, "turn/completed"), (4, delta), (5, delta)]
    assert runs == [[1, 2], [3], [4], [5]]
    assert [e.seq for e in handle.ring_after(0)] == [1, 2, 3, 4, 5]
    assert [e.method for e in await store.read_events("t-4", 0)] == ["turn/completed"]


async def test_a_second_unclean_end_never_numbers_from_the_same_stored_seq(store: SqliteThreadStore) -> None:
    # A daemon that loads a thread whose last run did not end cleanly numbers far above the stored
    # last seq; killed before it stored anything, the next daemon must not number from that same
    # stored seq again: the client may have seen the lazy events sent in between.
    handle = _open(store, "t-6")
    await handle.emit(ev.TurnCompleted("t-6", TURN, "completed", 1, 2, 5))  # stored; no thread/closed
    events: list[ThreadEvent] = []
    for _run in range(2):  # each a daemon killed before it stored an event
        opened = await _manager(store).open("t-6")
        assert opened is not None
        seen = max((e.seq for e in events), default=0)
        opened.handle.add_listener(events.append)
        await opened.handle.emit(ev.ThreadWarning("t-6", "lazy: sent, never stored"))
        assert events[-1].seq > seen, [e.seq for e in events]
