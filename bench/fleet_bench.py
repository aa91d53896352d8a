"""Fleet benchmark: fenced commits from several nodes on one PostgreSQL, and lease renewal.

Run: .venv/bin/python bench/fleet_bench.py --store postgresql://… [--nodes 3] [--threads 50]
[--seconds 10]. Each node is a store with its own pool (8 connections, as a daemon's) that owns
`--threads` threads; every thread commits, back to back, what a running turn writes per completed
item (the item, its search text and two events, fenced by the lease). Prints the commits per
second the database took, their latency, and what renewing one node's leases costs. A daemon's
turns commit far less often than back to back: this is the ceiling (docs/fleet.md, "Capacity").
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from tether_server.store.base import Batch, EventRecord, ItemRecord, ThreadRecord, TurnRecord
from tether_server.store.postgres import PostgresThreadStore

BASE_TIME = 1_790_000_000


async def _thread(store: PostgresThreadStore, tid: str, until: float, latencies: list[float]) -> None:
    assert store.leases is not None
    store.leases.fence[tid] = 0  # created on this node: the first commit takes the lease
    record = ThreadRecord(tid, BASE_TIME, BASE_TIME, BASE_TIME, "/w", "gpt-test", "openai", preview="bench")
    await store.commit(Batch(thread=record, turns=[TurnRecord(tid, "turn", 0, "inProgress")]))
    n = 0
    while time.monotonic() < until:
        n += 1
        item = {"type": "agentMessage", "id": f"m{n}", "text": f"streamed words {n} " * 20, "phase": None}
        events = [
            EventRecord(tid, 2 * n, "item/started", {"n": n}, BASE_TIME),
            EventRecord(tid, 2 * n + 1, "item/completed", {"n": n}, BASE_TIME),
        ]
        start = time.perf_counter()
        await store.commit(Batch(items=[ItemRecord(tid, "turn", f"m{n}", n, item)], events=events))
        latencies.append((time.perf_counter() - start) * 1000)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--store", required=True, help="postgresql:// URL of an empty database")
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--threads", type=int, default=50, help="loaded threads per node")
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    stores = [PostgresThreadStore(args.store) for _ in range(args.nodes)]
    for n, store in enumerate(stores):
        await store.open()
        store.own_threads(f"node-{n}", 30)
    latencies: list[float] = []
    try:
        until = time.monotonic() + args.seconds
        began = time.perf_counter()
        await asyncio.gather(
            *(
                _thread(store, f"n{n}-t{t:04d}", until, latencies)
                for n, store in enumerate(stores)
                for t in range(args.threads)
            )
        )
        elapsed = time.perf_counter() - began
        leases = stores[0].leases
        assert leases is not None
        start = time.perf_counter()
        await leases.renew()
        renew_ms = (time.perf_counter() - start) * 1000
    finally:
        for store in stores:
            await store.close()
    latencies.sort()
    loaded = args.nodes * args.threads
    print(f"{args.nodes} nodes x {args.threads} loaded threads, {elapsed:.1f} s")
    rate = len(latencies) / elapsed
    print(f"fenced commits: {rate:.0f}/s ({rate / loaded:.1f}/s per thread)")
    print(
        f"commit latency: median {statistics.median(latencies):.1f} ms, "
        f"p99 {latencies[int(len(latencies) * 0.99)]:.1f} ms"
    )
    print(f"renewing one node's {args.threads} leases: {renew_ms:.1f} ms")


if __name__ == "__main__":
    asyncio.run(main())
