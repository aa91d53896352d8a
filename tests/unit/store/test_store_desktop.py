"""Attachments and queued messages in both stores: one attachment per (thread, type, key), listed
in (created_at, id) order, owners by thread with their archived flag; a thread's queue replaced
whole and in order; both dropped with their thread."""

from __future__ import annotations

from tests.unit.store.store_records import commit_threads, thread

from tether_server.store.base import ThreadStore
from tether_server.store.desktop import AttachmentOwner, AttachmentRecord, QueuedRecord
from tether_server.store.projects import ProjectRecord


def _attachment(aid: str, tid: str, key: str, created: int = 10, payload: object = None) -> AttachmentRecord:
    return AttachmentRecord(aid, tid, "pr", key, payload, created)


async def test_attachments_are_once_per_identity_ordered_and_go_with_their_thread(store: ThreadStore) -> None:
    await commit_threads(store, [thread("t1"), thread("t2", created=101)])
    first = _attachment("a2", "t1", "k1", payload={"deep": [1, None]})
    assert await store.add_attachment(first) == (first, True)
    assert await store.add_attachment(_attachment("a9", "t1", "k1", payload=5)) == (first, False)
    early = _attachment("a3", "t1", "k2", created=5)
    same_time = _attachment("a1", "t1", "k3")
    await store.add_attachment(early)
    await store.add_attachment(same_time)
    await store.add_attachment(_attachment("b1", "t2", "k1"))
    assert await store.list_attachments("t1", None, 10) == [early, same_time, first]
    assert await store.list_attachments("t1", (10, "a1"), 10) == [first]
    assert await store.list_attachments("t1", None, 1) == [early]

    assert await store.set_archived("t2", True, 200)
    owners = [AttachmentOwner("t1", False), AttachmentOwner("t2", True)]
    assert await store.attachment_owners("pr", "k1", None, None, 10) == owners
    assert await store.attachment_owners("pr", "k1", False, None, 10) == owners[:1]
    assert await store.attachment_owners("pr", "k1", True, None, 10) == owners[1:]
    assert await store.attachment_owners("pr", "k1", None, "t1", 10) == owners[1:]
    assert await store.attachment_owners("pr", "k1", None, None, 1) == owners[:1]

    assert await store.remove_attachment("t1", "pr", "k2") == early
    assert await store.remove_attachment("t1", "pr", "k2") is None
    assert await store.delete_thread("t1")
    assert await store.list_attachments("t1", None, 10) == []
    assert await store.attachment_owners("pr", "k1", None, None, 10) == owners[1:]


async def test_a_queue_is_replaced_whole_in_order_and_goes_with_its_thread(store: ThreadStore) -> None:
    await commit_threads(store, [thread("t1")])
    text = [{"type": "text", "text": "hi", "text_elements": []}]
    q1, q2 = QueuedRecord("q1", "c1", text, {"k": "v"}), QueuedRecord("q2", "c2", text)
    assert await store.queued("t1") == []
    await store.save_queue("t1", [q2, q1])
    await store.save_queue("not-written", [QueuedRecord("q3", "c3", text)])  # before its first turn
    assert await store.queued("t1") == [q2, q1]
    assert await store.queued_threads() == ["not-written", "t1"]
    await store.save_queue("t1", [q1])
    assert await store.queued("t1") == [q1]
    assert await store.delete_thread("t1")
    assert await store.queued("t1") == []
    await store.save_queue("not-written", [])
    assert await store.queued_threads() == []


async def test_projects_keep_their_order_members_and_keys_and_lose_members_with_threads(
    store: ThreadStore,
) -> None:
    await commit_threads(store, [thread("t1"), thread("t2", created=101), thread("t3", created=102)])
    a = ProjectRecord("pa", "A", ["/w"], {"k": "v"}, 1, 10, 10, "key-a")
    b = ProjectRecord("pb", "B", [], {}, 0, 11, 11, "key-b")
    await store.put_projects([a, b], ["t1", "t2", "unwritten"], "pa")
    assert await store.list_projects() == [b, a]
    assert await store.get_project("pa") == a and await store.get_project("nope") is None
    assert await store.project_by_key("key-b") == b and await store.project_by_key("other") is None
    assert await store.thread_projects(["t1", "t3", "unwritten"]) == {"t1": "pa", "unwritten": "pa"}
    assert await store.project_members("pa") == ["t1", "t2", "unwritten"]
    assert await store.project_recency(["pa", "pb"]) == {"pa": 101}  # written, unarchived members only
    assert await store.set_archived("t2", True, 200)
    assert await store.project_recency(["pa"]) == {"pa": 100}

    moved = ProjectRecord("pa", "A2", [], {}, 0, 10, 20, "key-a")
    await store.put_projects([moved, ProjectRecord("pb", "B", [], {}, 1, 11, 11, "key-b")], ["t3"], "pb")
    await store.put_projects([], ["unwritten"], None)
    assert [p.id for p in await store.list_projects()] == ["pa", "pb"]
    assert await store.get_project("pa") == moved
    assert await store.project_members(None) == ["t1", "t2", "t3"]
    assert await store.delete_thread("t1")
    assert await store.project_members("pa") == ["t2"]
    assert await store.delete_project("pa") == ["t2"]
    assert await store.thread_projects(["t2"]) == {}
    assert [p.id for p in await store.list_projects()] == ["pb"]
