"""Thread sections in both stores: Pinned from the start, id order, memberships in position order,
a section's deletion unsectioning its threads, a thread's deletion dropping its place."""

from __future__ import annotations

from tests.unit.store.store_records import commit_threads, thread

from tether_server.store.base import ThreadStore
from tether_server.store.sections import PINNED_SECTION_ID, Membership, SectionRecord

PINNED = SectionRecord(PINNED_SECTION_ID, "Pinned")
# UUIDv7 text sorts by creation time; these sort after Pinned's id.
A = SectionRecord("01a2-a", "A", {"icon": "star", "color": None})
B = SectionRecord("01a2-b", "B")


async def test_sections_list_in_id_order_after_a_cursor_and_update_in_place(store: ThreadStore) -> None:
    assert await store.list_sections(None, 10) == [PINNED]
    await store.put_section(B)
    await store.put_section(A)
    assert await store.list_sections(None, 10) == [PINNED, A, B]
    assert await store.list_sections(PINNED_SECTION_ID, 1) == [A]
    assert await store.list_sections("zzz", 10) == []
    renamed = SectionRecord(A.id, "A2", None)
    await store.put_section(renamed)
    assert await store.get_section(A.id) == renamed
    assert await store.get_section("missing") is None


async def test_members_come_in_position_order_and_leave_with_their_section_or_thread(
    store: ThreadStore,
) -> None:
    await commit_threads(store, [thread("t1"), thread("t2", created=101), thread("t3", created=102)])
    await store.put_section(A)
    await store.put_section(B)
    await store.set_memberships(
        [Membership("t1", A.id, 2_000, 10), Membership("t2", A.id, 1_000, 11), Membership("t3", B.id, 5, 12)]
    )
    assert [m.thread_id for m in await store.section_members(A.id)] == ["t2", "t1"]
    assert {m.thread_id for m in await store.section_members(None)} == {"t1", "t2", "t3"}
    assert await store.memberships(["t3", "nobody"]) == {"t3": Membership("t3", B.id, 5, 12)}

    await store.set_memberships([Membership("t3", A.id, 3_000, 13)], remove=["t2"])
    assert [m.thread_id for m in await store.section_members(A.id)] == ["t1", "t3"]
    assert await store.delete_thread("t1")
    assert [m.thread_id for m in await store.section_members(A.id)] == ["t3"]
    assert await store.delete_section(A.id)
    assert not await store.delete_section(A.id)
    assert await store.memberships(["t3"]) == {}
    assert await store.list_sections(None, 10) == [PINNED, B]
