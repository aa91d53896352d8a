"""The in-memory twin and the PostgreSQL store answer random queries and edits identically.

The same random conversations, queries (Unicode case, `%` and `_` in terms, every filter, pages
both ways) and edits (revert, rename, archive, delete, crash recovery) as the SQLite twin test.
"""

from __future__ import annotations

import random

from tests.unit.store.store_records import conversation
from tests.unit.store.test_store_twins_agree import (
    all_pages,
    apply_random_change,
    random_conversation,
    random_query,
)

from tether_server.store.base import ThreadQuery, ThreadStore
from tether_server.store.memory import MemoryThreadStore
from tether_server.store.postgres import PostgresThreadStore


async def test_postgres_pages_through_random_queries_as_memory_does(postgres_url: str) -> None:
    rng = random.Random(11)
    memory, postgres = MemoryThreadStore(), PostgresThreadStore(postgres_url)
    await postgres.open()
    try:
        for n in range(80):
            batch = random_conversation(rng, n)
            await memory.commit(batch)
            await postgres.commit(batch)
        for _ in range(80):
            query = random_query(rng)
            assert await all_pages(postgres, query) == await all_pages(memory, query), query
    finally:
        await postgres.close()


async def test_postgres_agrees_with_memory_after_random_edits(postgres_url: str) -> None:
    rng = random.Random(5)
    memory, postgres = MemoryThreadStore(), PostgresThreadStore(postgres_url)
    await postgres.open()
    stores: list[ThreadStore] = [memory, postgres]
    try:
        ids = [f"c{n}" for n in range(12)]
        for n, thread_id in enumerate(ids):
            batch = conversation(thread_id, turns=rng.randrange(1, 5), created=n)
            batch.turns[-1].status = rng.choice(["completed", "inProgress"])
            for store in stores:
                await store.commit(batch)
        for _ in range(30):
            await apply_random_change(rng, stores, rng.choice(ids))
        for thread_id in ids:
            assert await postgres.load_thread(thread_id) == await memory.load_thread(thread_id)
            assert await postgres.read_events(thread_id, 0) == await memory.read_events(thread_id, 0)
            assert await postgres.load_session(thread_id) == await memory.load_session(thread_id)
            assert await postgres.item_texts(thread_id) == await memory.item_texts(thread_id)
        for term in ("renamed", "answer 2", "question"):
            query = ThreadQuery(search_term=term, archived=rng.random() < 0.5)
            assert await all_pages(postgres, query) == await all_pages(memory, query)
    finally:
        await postgres.close()
