"""The fence under every commit: a node whose lease was taken over writes nothing to the thread.

Two stores on one real PostgreSQL database act as two fleet nodes. Expiry is the database's
clock; here the test ends node A's lease by setting its expiry to now (as time passing would).
"""

from __future__ import annotations

import psycopg
import pytest

from tether_server.store.base import Batch, EventRecord, ThreadRecord, TurnRecord
from tether_server.store.postgres import PostgresThreadStore
from tether_server.store.postgres_leases import Holder, StaleOwner


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
