"""Store benchmark: thread/list and search latency at 100k threads, loading a 2,000-turn thread.

Run: .venv/bin/python bench/store_bench.py [--threads 100000] [--repeat 20] [--path FILE | --store URL]
Builds the database through the store's `commit` (one batch per thread, as the daemon writes),
then prints median latencies. Targets: first page < 20 ms, search < 100 ms. `--store
postgresql://…` measures the PostgreSQL store instead (an empty database: docs/fleet.md).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tether_server.store.base import (
    Batch,
    EventRecord,
    HistoryRecord,
    ItemRecord,
    ThreadQuery,
    ThreadRecord,
    TurnRecord,
)
from tether_server.store.postgres import PostgresThreadStore
from tether_server.store.sqlite import SqliteThreadStore

Store = SqliteThreadStore | PostgresThreadStore

# Pseudo-words from syllables so that trigrams vary as in real text; sentences draw them Zipf-like
# (low indexes are common), so search terms range from rare to very common.
_SYLLABLES: tuple[str, ...] = (
    "ka",
    "lo",
    "mi",
    "re",
    "tu",
    "sa",
    "ne",
    "vi",
    "po",
    "da",
    "fe",
    "gu",
    "ri",
    "mo",
    "ta",
)
_SYLLABLES += ("bel", "cor", "dim", "fas", "gol", "han", "jur", "kes", "lin", "mar")
WORDS = [a + b + c for a in _SYLLABLES for b in _SYLLABLES for c in ("", "n", "s", "ter", "ly")]
# Terms in about 0.06%, 2%, 12% and 85% of threads, a 2-character term and an absent phrase.
SEARCH_TERMS = (WORDS[3000], WORDS[300], WORDS[100], WORDS[1], "zq", "parser bug")
CWD = "/home/user/project"
BASE_TIME = 1_790_000_000


def sentence(rng: random.Random, length: int) -> str:
    return " ".join(WORDS[min(int(rng.paretovariate(0.6)) - 1, len(WORDS) - 1)] for _ in range(length))


def conversation_batch(rng: random.Random, n: int) -> Batch:
    thread_id = f"thread-{n:06d}"
    created = BASE_TIME + n // 3  # three threads per second: plenty of ties
    question = sentence(rng, 12)
    record = ThreadRecord(
        id=thread_id, created_at=created, updated_at=created + rng.randrange(3600),
        recency_at=created + rng.randrange(3600), cwd=f"{CWD}{n % 40}",
        model="gpt-test", model_provider="openai" if n % 7 else "ollama", preview=question,
        name=sentence(rng, 3) if n % 10 == 0 else None, last_seq=2,
    )  # fmt: skip
    turn = TurnRecord(
        thread_id, f"{thread_id}-turn0", 0, "completed", started_at=created, completed_at=created
    )
    return Batch(
        thread=record,
        turns=[turn],
        items=[user_item(thread_id, turn.turn_id, 0, question), agent_item(thread_id, turn.turn_id, 1, rng)],
        events=[
            EventRecord(thread_id, 1, "turn/started", {}, 0),
            EventRecord(thread_id, 2, "turn/completed", {}, 0),
        ],
    )


def user_item(thread_id: str, turn_id: str, ordinal: int, text: str) -> ItemRecord:
    item: dict[str, Any] = {
        "type": "userMessage",
        "id": f"u{ordinal}",
        "content": [{"type": "text", "text": text}],
    }
    return ItemRecord(thread_id, turn_id, f"u{ordinal}", ordinal, item)


def agent_item(thread_id: str, turn_id: str, ordinal: int, rng: random.Random) -> ItemRecord:
    item = {"type": "agentMessage", "id": f"msg{ordinal}", "text": sentence(rng, 60), "phase": None}
    return ItemRecord(thread_id, turn_id, f"msg{ordinal}", ordinal, item)


async def median_ms(repeat: int, action: Callable[[], Awaitable[object]]) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        await action()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


async def populate(store: Store, count: int) -> float:
    rng = random.Random(7)
    start = time.perf_counter()
    for n in range(count):
        await store.commit(conversation_batch(rng, n))
    return time.perf_counter() - start


async def add_long_thread(store: Store, turns: int) -> str:
    rng = random.Random(11)
    thread_id = "long-thread"
    record = ThreadRecord(thread_id, BASE_TIME, BASE_TIME, BASE_TIME, "/p", "m", "openai", preview="long")
    await store.commit(Batch(thread=record))
    for first in range(0, turns, 100):
        batch = Batch()
        for n in range(first, min(first + 100, turns)):
            turn = TurnRecord(thread_id, f"turn-{n}", n, "completed", started_at=BASE_TIME)
            batch.turns.append(turn)
            batch.items += [user_item(thread_id, turn.turn_id, 2 * n, sentence(rng, 12))]
            batch.items += [agent_item(thread_id, turn.turn_id, 2 * n + 1, rng)]
            batch.history.append(HistoryRecord(thread_id, turn.turn_id, n, {"type": "message", "n": n}))
            batch.events.append(EventRecord(thread_id, n + 1, "turn/completed", {}, 0))
        await store.commit(batch)
    return thread_id


async def cursor_of_page(store: Store, page_number: int) -> tuple[str | None, float]:
    """The cursor that fetches `page_number` (1-based), and how long walking there took."""
    cursor = None
    start = time.perf_counter()
    for _ in range(page_number - 1):
        cursor = (await store.list_threads(ThreadQuery(limit=50, cursor=cursor))).next_cursor
    return cursor, time.perf_counter() - start


async def measure(store: Store, repeat: int, long_id: str) -> list[tuple[str, float]]:
    def listing(query: ThreadQuery) -> Callable[[], Awaitable[object]]:
        return lambda: store.list_threads(query)

    cursor, walk = await cursor_of_page(store, 500)
    cases: list[tuple[str, Callable[[], Awaitable[object]]]] = [
        ("thread/list first page (50, created_at desc)", listing(ThreadQuery())),
        (
            "thread/list first page (updated_at asc)",
            listing(ThreadQuery(sort_key="updated_at", sort_direction="asc")),
        ),
        ("thread/list first page (recency_at desc)", listing(ThreadQuery(sort_key="recency_at"))),
        ("thread/list page 500 via cursor", listing(ThreadQuery(cursor=cursor))),
        (
            "thread/list, cwd + provider filter",
            listing(ThreadQuery(cwds=[f"{CWD}7"], model_providers=["ollama"])),
        ),
    ]
    for term in SEARCH_TERMS:
        hits = len((await store.list_threads(ThreadQuery(search_term=term, limit=100))).data)
        cases.append((f"search {term!r} ({hits} on first 100)", listing(ThreadQuery(search_term=term))))
    cases.append(
        (
            "list_turns first page of the long thread",
            lambda: store.list_turns(long_id, cursor=None, limit=50, direction="desc"),
        )
    )
    results = [(label, await median_ms(repeat, action)) for label, action in cases]
    results.append(("walking to page 500 via cursors (total)", walk * 1000))
    results.append(
        (
            "load_thread (2,000 turns, 4,000 items)",
            await median_ms(max(3, repeat // 4), lambda: store.load_thread(long_id)),
        )
    )
    return results


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--path", type=Path, help="database file (default: a temporary one)")
    parser.add_argument("--store", help="a postgresql:// URL of an empty database, in place of --path")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store: Store = (
            PostgresThreadStore(args.store)
            if args.store
            else SqliteThreadStore(args.path or Path(tmp) / "bench.db")
        )
        await store.open()
        try:
            seconds = await populate(store, args.threads)
            print(
                f"created {args.threads} threads in {seconds:.1f} s ({args.threads / seconds:.0f} commits/s)"
            )
            long_id = await add_long_thread(store, 2000)
            for label, ms in await measure(store, args.repeat, long_id):
                print(f"{label:<52} {ms:9.2f} ms")
        finally:
            await store.close()


if __name__ == "__main__":
    asyncio.run(main())
