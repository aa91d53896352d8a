"""The in-memory twin and the SQLite store answer random listing queries identically."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from tests.unit.store.store_records import agent_item, conversation, thread, turn, user_item

from tether_server.store.base import Batch, Page, ThreadQuery, ThreadRecord, ThreadStore
from tether_server.store.memory import MemoryThreadStore
from tether_server.store.sqlite import SqliteThreadStore

WORDS = ["parser", "Lexer", "token", "CAFÉ", "naïve", "grammar", "50%", "snake_case", "ab", "x"]


def random_conversation(rng: random.Random, n: int) -> Batch:
    record = thread(
        f"t{n:03d}",
        created=rng.randrange(5),
        updated_at=rng.randrange(5),
        recency_at=rng.randrange(5),
        cwd=rng.choice(["/a", "/b", "/c"]),
        model_provider=rng.choice(["openai", "ollama"]),
        source=rng.choice(["vscode", "cli", "exec"]),
        archived=rng.random() < 0.2,
        name=rng.choice([None, " ".join(rng.sample(WORDS, 2))]),
        preview=rng.choice(["", " ".join(rng.sample(WORDS, 3))]),
    )
    t = turn(record.id, 0)
    items = [
        user_item(record.id, t.turn_id, 0, " ".join(rng.sample(WORDS, 2))),
        agent_item(record.id, t.turn_id, 1, " ".join(rng.sample(WORDS, 3))),
    ]
    return Batch(thread=record, turns=[t], items=items)


def random_query(rng: random.Random) -> ThreadQuery:
    word = rng.choice(WORDS)
    start = rng.randrange(len(word))
    term = word[start : start + rng.randrange(1, 6)]
    return ThreadQuery(
        limit=rng.randrange(1, 9),
        sort_key=rng.choice(["created_at", "updated_at", "recency_at"]),
        sort_direction=rng.choice(["asc", "desc"]),
        archived=rng.random() < 0.2,
        cwds=rng.choice([None, ["/a"], ["/a", "/c"]]),
        model_providers=rng.choice([None, [], ["ollama"]]),
        sources=rng.choice([None, ["vscode", "cli"]]),
        search_term=rng.choice([None, term, term.upper(), term.swapcase()]),
        exclude_ids=rng.choice([(), ("t001", "t002", "t010")]),
    )


async def all_pages(store: ThreadStore, query: ThreadQuery) -> list[Page[ThreadRecord]]:
    pages = [await store.list_threads(query)]
    while pages[-1].next_cursor is not None:
        query = ThreadQuery(**{**query.__dict__, "cursor": pages[-1].next_cursor})
        pages.append(await store.list_threads(query))
    return pages


# (probe window, match cap): the cap picks how an index search pages, matches looked up first
# (cap above every count) or the listed threads walked in page order (cap 0).
@pytest.mark.parametrize(("probe_window", "match_cap"), [(1000, 10_000), (0, 10_000), (0, 0), (3, 0), (3, 5)])
async def test_both_stores_page_through_random_queries_identically(
    tmp_path: Path, probe_window: int, match_cap: int
) -> None:
    rng = random.Random(probe_window)
    memory = MemoryThreadStore()
    sqlite = SqliteThreadStore(
        tmp_path / "tether.db", search_probe_window=probe_window, search_match_cap=match_cap
    )
    await sqlite.open()
    try:
        for n in range(80):
            batch = random_conversation(rng, n)
            await memory.commit(batch)
            await sqlite.commit(batch)
        for _ in range(60):
            query = random_query(rng)
            assert await all_pages(sqlite, query) == await all_pages(memory, query), query
    finally:
        await sqlite.close()


async def apply_random_change(rng: random.Random, stores: list[ThreadStore], thread_id: str) -> None:
    choice, turn_number, name = rng.randrange(5), rng.randrange(4), rng.choice([None, "renamed parser"])
    for store in stores:
        if choice == 0:
            await store.truncate_before_turn(thread_id, f"{thread_id}:turn{turn_number}")
        elif choice == 1:
            await store.set_name(thread_id, name, at=77)
        elif choice == 2:
            await store.set_archived(thread_id, True, at=78)
        elif choice == 3:
            await store.delete_thread(thread_id)
        else:
            await store.interrupt_in_progress(now=79)


async def test_both_stores_agree_after_random_edits(tmp_path: Path) -> None:
    rng = random.Random(5)
    memory = MemoryThreadStore()
    sqlite = SqliteThreadStore(tmp_path / "tether.db")
    await sqlite.open()
    stores: list[ThreadStore] = [memory, sqlite]
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
            assert await sqlite.load_thread(thread_id) == await memory.load_thread(thread_id)
            assert await sqlite.read_events(thread_id, 0) == await memory.read_events(thread_id, 0)
        for term in ("renamed", "answer 2", "question"):
            query = ThreadQuery(search_term=term, archived=rng.random() < 0.5)
            assert await all_pages(sqlite, query) == await all_pages(memory, query)
    finally:
        await sqlite.close()
