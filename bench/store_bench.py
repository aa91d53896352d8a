"""Store benchmark: thread/list and search latency at 100k threads, loading a 2,000-turn thread.

Run: .venv/bin/python bench/store_bench.py [--threads 100000] [--repeat 20] [--path FILE]
Builds the database through `SqliteThreadStore.commit` (one batch per thread, as the daemon
writes), then prints median latencies. Targets: first page < 20 ms, search < 100 ms.
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
from tether_server.store.sqlite import SqliteThreadStore

WORDS = [f"w{n:04d}" for n in range(5000)]  # a Zipf-ish vocabulary: low numbers are common
BASE_TIME = 1_790_000_000


def sentence(rng: random.Random, length: int) -> str:
    return " ".join(WORDS[min(int(rng.paretovariate(0.6)) - 1, len(WORDS) - 1)] for _ in range(length))


def conversation_batch(rng: random.Random, n: int) -> Batch:
    thread_id = f"thread-{n:06d}"
    created = BASE_TIME + n // 3  # three threads per second: plenty of ties
    question = sentence(rng, 12)
    record = ThreadRecord(
        id=thread_id, created_at=created, updated_at=created + rng.randrange(3600),
        recency_at=created + rng.randrange(3600), cwd=f"/home/user/project{n % 40}",
        model="gpt-test", model_provider="openai" if n % 5 else "ollama", preview=question,
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


async def populate(store: SqliteThreadStore, count: int) -> float:
    rng = random.Random(7)
    start = time.perf_counter()
    for n in range(count):
        await store.commit(conversation_batch(rng, n))
    return time.perf_counter() - start


async def add_long_thread(store: SqliteThreadStore, turns: int) -> str:
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


async def cursor_of_page(store: SqliteThreadStore, page_number: int) -> tuple[str | None, float]:
    """The cursor that fetches `page_number` (1-based), and how long walking there took."""
    cursor = None
    start = time.perf_counter()
    for _ in range(page_number - 1):
        cursor = (await store.list_threads(ThreadQuery(limit=50, cursor=cursor))).next_cursor
    return cursor, time.perf_counter() - start


async def measure(store: SqliteThreadStore, repeat: int, long_id: str) -> list[tuple[str, float]]:
    results = [
        (
            "thread/list first page (50, created_at desc)",
            await median_ms(repeat, lambda: store.list_threads(ThreadQuery())),
        )
    ]
    for key in ("updated_at", "recency_at"):
        query = ThreadQuery(sort_key=key, sort_direction="asc")  # type: ignore[arg-type]
        results.append(
            (
                f"thread/list first page ({key} asc)",
                await median_ms(repeat, lambda q=query: store.list_threads(q)),
            )
        )
    cursor, walk = await cursor_of_page(store, 500)
    results.append(("walking 499 pages via cursors (total)", walk * 1000))
    results.append(
        (
            "thread/list page 500 via cursor",
            await median_ms(repeat, lambda: store.list_threads(ThreadQuery(cursor=cursor))),
        )
    )
    cwd = ThreadQuery(cwds=["/home/user/project7"], model_providers=["ollama"])
    results.append(
        (
            "thread/list first page, cwd+provider filter",
            await median_ms(repeat, lambda: store.list_threads(cwd)),
        )
    )
    for term, label in (
        ("w0300", "rare word"),
        ("w0020", "mid word"),
        ("w0001", "common word"),
        ("zz", "2-char, no match"),
    ):
        query = ThreadQuery(search_term=term)
        hits = len((await store.list_threads(query)).data)
        results.append(
            (
                f"search '{term}' ({label}, page {hits})",
                await median_ms(repeat, lambda q=query: store.list_threads(q)),
            )
        )
    results.append(
        (
            "load_thread (2,000 turns, 4,000 items)",
            await median_ms(max(3, repeat // 4), lambda: store.load_thread(long_id)),
        )
    )
    turns = lambda: store.list_turns(long_id, cursor=None, limit=50, direction="desc")  # noqa: E731
    results.append(("list_turns first page of the long thread", await median_ms(repeat, turns)))
    return results


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--path", type=Path, help="database file (default: a temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteThreadStore(args.path or Path(tmp) / "bench.db")
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
