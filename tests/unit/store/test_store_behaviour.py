"""ThreadStore behaviour shared by the SQLite store and its in-memory twin."""

from __future__ import annotations

import asyncio
import json

import pytest
from tests.unit.store.store_records import agent_item, conversation, event, history, thread, turn, user_item

from tether_server.store.base import Batch, StoreError, ThreadQuery, ThreadStore


async def test_a_committed_conversation_loads_back_in_order(store: ThreadStore) -> None:
    await store.commit(conversation("th1", turns=3))

    loaded = await store.load_thread("th1")

    assert loaded is not None
    assert loaded.record.preview == "first question of th1"
    assert [t.turn_id for t in loaded.turns] == ["th1:turn0", "th1:turn1", "th1:turn2"]
    assert [i.item_id for i in loaded.items] == ["u0", "msg1", "u2", "msg3", "u4", "msg5"]
    assert loaded.items[0].item["content"][0]["text"] == "question 0"
    assert loaded.items[0].started_at_ms == 5
    assert [h.ordinal for h in loaded.history] == [0, 1, 2]


async def test_a_session_load_has_the_history_and_counts_and_items_read_as_their_stored_json(
    store: ThreadStore,
) -> None:
    await store.commit(conversation("th1", turns=3))
    loaded = await store.load_thread("th1")
    assert loaded is not None

    session = await store.load_session("th1")

    assert session is not None
    assert session.record == loaded.record
    assert session.history.parse() == [h.item for h in loaded.history]
    assert (session.turn_count, session.item_count) == (3, 6)
    texts = await store.item_texts("th1")
    assert [(turn_id, json.loads(text)) for turn_id, text in texts] == [
        (i.turn_id, i.item) for i in loaded.items
    ]
    assert await store.load_session("nope") is None
    assert await store.item_texts("nope") == []


async def test_thread_fields_survive_a_round_trip(store: ThreadStore) -> None:
    record = thread(
        "th1",
        name="My title",
        archived=True,
        forked_from_id="th0",
        git_info={"sha": "abc", "branch": "main", "originUrl": None},
        settings={"approvalPolicy": "on-request", "sandbox": {"type": "readOnly"}},
        cli_version="0.1.0",
        originator="tether",
        source="cli",
    )
    await store.commit(Batch(thread=record))

    assert await store.get_thread("th1") == record


async def test_unknown_threads_read_as_absent(store: ThreadStore) -> None:
    assert await store.get_thread("nope") is None
    assert await store.load_thread("nope") is None
    assert await store.read_events("nope", 0) == []


async def test_committing_a_turn_again_updates_it_in_place(store: ThreadStore) -> None:
    await store.commit(Batch(thread=thread("th1"), turns=[turn("th1", 0, "inProgress")]))
    finished = turn("th1", 0, "failed")
    finished.error = {"message": "boom", "codexErrorInfo": "other", "additionalDetails": None}
    finished.completed_at, finished.duration_ms = 1010, 10_000

    await store.commit(Batch(turns=[finished]))

    loaded = await store.load_thread("th1")
    assert loaded is not None
    assert loaded.turns == [finished]


async def test_committing_an_item_again_replaces_its_json(store: ThreadStore) -> None:
    await store.commit(Batch(thread=thread("th1"), turns=[turn("th1", 0)]))
    await store.commit(Batch(items=[agent_item("th1", "th1:turn0", 0, "draft")]))
    await store.commit(Batch(items=[agent_item("th1", "th1:turn0", 0, "final")]))

    loaded = await store.load_thread("th1")
    assert loaded is not None
    assert [i.item["text"] for i in loaded.items] == ["final"]


async def test_events_read_back_after_a_seq_and_raise_last_seq(store: ThreadStore) -> None:
    await store.commit(conversation("th1", turns=2))

    events = await store.read_events("th1", after_seq=2)

    assert [e.seq for e in events] == [3, 4]
    assert events[0].method == "turn/started"
    assert events[0].params == {"threadId": "th1", "n": 3}
    assert [e.seq for e in await store.read_events("th1", after_seq=0, limit=2)] == [1, 2]
    record = await store.get_thread("th1")
    assert record is not None
    assert record.last_seq == 4


async def test_the_last_event_of_a_method_is_the_newest_one_stored(store: ThreadStore) -> None:
    await store.commit(conversation("th1", turns=3))

    last = await store.last_event("th1", "turn/started")

    assert last is not None and (last.seq, last.params) == (5, {"threadId": "th1", "n": 5})
    assert await store.last_event("th1", "thread/tokenUsage/updated") is None
    assert await store.last_event("nope", "turn/started") is None


async def test_recommitting_thread_metadata_never_lowers_last_seq(store: ThreadStore) -> None:
    await store.commit(conversation("th1", turns=2))

    await store.commit(Batch(thread=thread("th1", updated_at=500)))

    record = await store.get_thread("th1")
    assert record is not None
    assert (record.last_seq, record.updated_at) == (4, 500)


async def test_a_batch_with_a_duplicate_event_seq_writes_nothing(store: ThreadStore) -> None:
    await store.commit(Batch(thread=thread("th1"), events=[event("th1", 1)]))

    bad = Batch(thread=thread("th1", name="changed"), turns=[turn("th1", 0)], events=[event("th1", 1)])
    with pytest.raises(StoreError):
        await store.commit(bad)

    loaded = await store.load_thread("th1")
    assert loaded is not None
    assert (loaded.record.name, loaded.turns) == (None, [])


async def test_rows_for_a_thread_that_does_not_exist_are_refused(store: ThreadStore) -> None:
    with pytest.raises(StoreError):
        await store.commit(Batch(turns=[turn("ghost", 0)]))
    assert await store.get_thread("ghost") is None


async def test_archiving_and_naming_touch_updated_at_and_report_missing_threads(store: ThreadStore) -> None:
    await store.commit(Batch(thread=thread("th1")))

    assert await store.set_archived("th1", True, at=200)
    assert await store.set_name("th1", "Renamed", at=300)
    assert not await store.set_archived("nope", True, at=200)
    assert not await store.set_name("nope", "x", at=200)

    record = await store.get_thread("th1")
    assert record is not None
    assert (record.archived, record.name, record.updated_at) == (True, "Renamed", 300)


async def test_deleting_a_thread_removes_everything_it_owned(store: ThreadStore) -> None:
    await store.commit(conversation("th1", turns=2))
    await store.commit(conversation("th2", turns=1))

    assert await store.delete_thread("th1")
    assert not await store.delete_thread("th1")

    assert await store.load_thread("th1") is None
    assert await store.read_events("th1", 0) == []
    assert (await store.list_turns("th1", cursor=None, limit=10, direction="asc")).data == []
    assert await store.load_thread("th2") is not None


async def test_truncating_drops_the_turn_and_later_ones_but_keeps_events(store: ThreadStore) -> None:
    await store.commit(conversation("th1", turns=4))

    assert await store.truncate_before_turn("th1", "th1:turn2")

    loaded = await store.load_thread("th1")
    assert loaded is not None
    assert [t.turn_id for t in loaded.turns] == ["th1:turn0", "th1:turn1"]
    assert [i.item_id for i in loaded.items] == ["u0", "msg1", "u2", "msg3"]
    assert [h.ordinal for h in loaded.history] == [0, 1]
    assert len(await store.read_events("th1", 0)) == 8


async def test_after_truncating_the_dropped_ordinals_can_be_written_again(store: ThreadStore) -> None:
    await store.commit(conversation("th1", turns=2))
    await store.truncate_before_turn("th1", "th1:turn1")

    redo = turn("th1", 1)
    await store.commit(
        Batch(
            turns=[redo],
            items=[user_item("th1", redo.turn_id, 2, "again")],
            history=[history("th1", redo.turn_id, 1)],
        )
    )

    loaded = await store.load_thread("th1")
    assert loaded is not None
    assert [i.item_id for i in loaded.items] == ["u0", "msg1", "u2"]


async def test_truncating_at_an_unknown_turn_changes_nothing(store: ThreadStore) -> None:
    await store.commit(conversation("th1", turns=2))

    assert not await store.truncate_before_turn("th1", "missing")
    assert not await store.truncate_before_turn("nope", "th1:turn0")

    loaded = await store.load_thread("th1")
    assert loaded is not None
    assert len(loaded.turns) == 2


async def test_turns_left_in_progress_are_closed_as_interrupted(store: ThreadStore) -> None:
    await store.commit(Batch(thread=thread("b"), turns=[turn("b", 0), turn("b", 1, "inProgress")]))
    await store.commit(Batch(thread=thread("a"), turns=[turn("a", 0, "inProgress")]))

    closed = await store.interrupt_in_progress(now=4242)

    assert closed == [("a", "a:turn0"), ("b", "b:turn1")]
    loaded = await store.load_thread("b")
    assert loaded is not None
    assert [(t.status, t.completed_at) for t in loaded.turns] == [("completed", None), ("interrupted", 4242)]
    assert await store.interrupt_in_progress(now=5000) == []


async def test_records_handed_out_are_copies(store: ThreadStore) -> None:
    record = thread("th1")
    await store.commit(Batch(thread=record))
    record.name = "mutated after commit"
    read = await store.get_thread("th1")
    assert read is not None
    read.settings["x"] = 1

    again = await store.get_thread("th1")
    assert again is not None
    assert (again.name, again.settings) == (None, {})


async def test_concurrent_commits_and_reads_all_complete(store: ThreadStore) -> None:
    async def write(n: int) -> None:
        await store.commit(conversation(f"th{n}", turns=2, created=n))

    async def read(n: int) -> None:
        await store.list_threads(ThreadQuery(search_term=f"th{n}"))

    await asyncio.gather(*(write(n) for n in range(20)), *(read(n) for n in range(20)))

    page = await store.list_threads(ThreadQuery(limit=100))
    assert len(page.data) == 20
    assert all(r.last_seq == 4 for r in page.data)
