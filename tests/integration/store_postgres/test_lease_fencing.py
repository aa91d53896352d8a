"""The fence under every write: a node whose lease was taken over writes nothing to the thread.

Two stores on one real PostgreSQL database act as two fleet nodes. Expiry is the database's
clock; here the test ends node A's lease by setting its expiry to now (as time passing would).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import psycopg
import pytest

from tether_server.store.base import Batch, EventRecord, ThreadRecord, TurnRecord
from tether_server.store.desktop import AttachmentRecord, QueuedRecord
from tether_server.store.postgres import PostgresThreadStore
from tether_server.store.postgres_leases import Holder, StaleOwner
from tether_server.store.projects import ProjectRecord
from tether_server.store.sections import Membership


def _record(tid: str) -> ThreadRecord:
    return ThreadRecord(tid, 1, 1, 1, "/w", "gpt-test", "openai", preview="hello")


async def test_a_stale_epoch_is_refused_atomically_and_the_new_owner_writes(postgres_url: str) -> None:
    a, b = PostgresThreadStore(postgres_url), PostgresThreadStore(postgres_url)
    await a.open()
    await b.open()
    try:
        leases_a, leases_b = a.own_threads("node-a", 30), b.own_threads("node-b", 30)
        leases_a.fence["t1"] = 0  # created on node A: its first commit takes the lease
        turn = TurnRecord("t1", "turn1", 0, "inProgress")
        await a.commit(Batch(thread=_record("t1"), turns=[turn]))
        held = await leases_b.acquire("t1")
        assert isinstance(held, Holder) and (held.node_id, held.epoch) == ("node-a", 1)

        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute("UPDATE thread_leases SET expires_at = now() WHERE thread_id = 't1'")
        assert await leases_b.acquire("t1") == 2
        assert await leases_b.interrupt("t1", 5) == ["turn1"]

        stale = Batch(events=[EventRecord("t1", 7, "item/completed", {}, 1)], turns=[turn])
        with pytest.raises(StaleOwner, match="owned by node 'node-b' \\(epoch 2\\); node 'node-a' lost"):
            await a.commit(stale)
        assert await a.read_events("t1", 0) == []
        [stored] = (await a.list_turns("t1", cursor=None, limit=10, direction="asc")).data
        assert stored.status == "interrupted"
        assert await leases_a.renew() == ["t1"]  # the renewal finds it lost too

        await b.commit(Batch(events=[EventRecord("t1", 8, "turn/completed", {}, 1)]))
        assert [e.seq for e in await b.read_events("t1", 0)] == [8]
    finally:
        await a.close()
        await b.close()


async def _everything_of(store: PostgresThreadStore, tid: str) -> tuple[object, ...]:
    return (
        await store.get_thread(tid),
        await store.load_thread(tid),
        await store.get_goal(tid),
        await store.read_states([tid]),
        await store.list_attachments(tid, None, 10),
        await store.queued(tid),
        await store.memberships([tid]),
        await store.thread_projects([tid]),
    )


async def test_every_write_of_a_thread_besides_commit_is_fenced_too(postgres_url: str) -> None:
    a, b = PostgresThreadStore(postgres_url), PostgresThreadStore(postgres_url)
    await a.open()
    await b.open()
    try:
        leases_a, leases_b = a.own_threads("node-a", 30), b.own_threads("node-b", 30)
        for tid in ("t1", "t2"):
            leases_a.fence[tid] = 0
            await a.commit(Batch(thread=_record(tid), turns=[TurnRecord(tid, f"{tid}-turn", 0, "completed")]))
        assert await a.set_name("t1", "before", 2)  # still the owner: written
        assert await a.put_goal("t1", {"threadId": "t1", "objective": "old"})
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute("UPDATE thread_leases SET expires_at = now() WHERE thread_id = 't1'")
        assert await leases_b.acquire("t1") == 2
        before = await _everything_of(b, "t1")

        member = Membership("t1", "s1", 1, 10)
        attachment = AttachmentRecord("a1", "t1", "file", "/x", {"path": "/x"}, 5)
        stale_writes: list[Callable[[], Awaitable[object]]] = [
            lambda: a.set_name("t1", "stale", 3),
            lambda: a.set_archived("t1", True, 3),
            lambda: a.put_goal("t1", {"threadId": "t1", "objective": "stale"}),
            lambda: a.put_goal("t1", None),
            lambda: a.set_read_state("t1", {"turnId": "x"}, expected="0", revision="9"),
            lambda: a.add_attachment(attachment),
            lambda: a.remove_attachment("t1", "file", "/x"),
            lambda: a.save_queue("t1", [QueuedRecord("q1", "c1", [], None)]),
            # One refused thread refuses the whole write, the still-owned t2 included.
            lambda: a.set_memberships([member, Membership("t2", "s1", 2, 10)]),
            lambda: a.put_projects([ProjectRecord("p1", "P", [], {}, 0, 1, 1, None)], ["t2", "t1"], "p1"),
            lambda: a.truncate_before_turn("t1", "t1-turn"),
            lambda: a.delete_thread("t1"),
        ]
        for write in stale_writes:
            with pytest.raises(StaleOwner, match="owned by node 'node-b' \\(epoch 2\\); node 'node-a' lost"):
                await write()
        assert await _everything_of(b, "t1") == before
        assert await a.memberships(["t2"]) == {} and await a.list_projects() == []

        assert await a.set_name("t2", "still mine", 4)  # a thread node A still owns is written
        assert await b.set_name("t1", "new owner", 4)  # and the new owner writes t1
        assert await b.put_goal("t1", {"threadId": "t1", "objective": "new"})
        names = [r.name if r else None for r in [await a.get_thread("t1"), await a.get_thread("t2")]]
        assert names == ["new owner", "still mine"]
    finally:
        await a.close()
        await b.close()
