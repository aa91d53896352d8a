"""An item belongs to the turn that first recorded it, in the SQLite store and its in-memory twin."""

from __future__ import annotations

from tests.unit.store.store_records import agent_item, thread, turn

from tether_server.store.base import Batch, ThreadStore


async def test_an_item_id_recorded_again_by_a_later_turn_leaves_the_earlier_turn_unchanged(
    store: ThreadStore,
) -> None:
    first, second = turn("th1", 0), turn("th1", 1)
    await store.commit(
        Batch(thread=thread("th1"), turns=[first, second], items=[agent_item("th1", first.turn_id, 1, "one")])
    )
    await store.commit(Batch(items=[agent_item("th1", second.turn_id, 1, "two")]))

    loaded = await store.load_thread("th1")
    assert loaded is not None
    assert [(i.turn_id, i.item_id, i.item["text"]) for i in loaded.items] == [(first.turn_id, "msg1", "one")]


async def test_an_item_recorded_again_in_its_own_turn_is_updated_in_place(store: ThreadStore) -> None:
    first = turn("th1", 0)
    await store.commit(
        Batch(thread=thread("th1"), turns=[first], items=[agent_item("th1", first.turn_id, 1, "a")])
    )
    await store.commit(Batch(items=[agent_item("th1", first.turn_id, 1, "a, then b")]))

    loaded = await store.load_thread("th1")
    assert loaded is not None
    assert [(i.turn_id, i.item["text"]) for i in loaded.items] == [(first.turn_id, "a, then b")]
