"""Start-up, `thread/list` and search (`searchTerm`) time and RSS against threads in the database.

Each restart times spawn → `initialize` answered and spawn → the first `thread/list` page
answered (sent right after `initialize`: a server that answers `initialize` before its store is
open still pays for opening it there), then a warm page, a search for a rare word (one thread in
10,000 has it) and one for a word every thread has.
"""

from __future__ import annotations

import statistics
import time

from bench.growth.curve import Curve, Point, PointContext, Series
from bench.growth.homes import threads_home
from bench.growth.tether_db import COMMON, NEEDLE, NEEDLE_EVERY
from bench.runner.rpc import Json, StdioServer
from bench.runner.targets import tree_rss_mb

from tether_testing.script import text_reply

SPAWNS, QUICK_SPAWNS = 3, 1
PAGE = 50


async def _timed(server: StdioServer, params: Json) -> tuple[float, int]:
    started = time.perf_counter()
    result = await server.request("thread/list", params, timeout_s=600)
    return (time.perf_counter() - started) * 1000, len(result.get("data") or [])


async def measure(ctx: PointContext, count: int) -> Point:
    """Restart on a home of `count` threads; time start-up, list pages and searches."""
    home = await threads_home(ctx, count)
    run = ctx.run
    point = Point(count)
    samples: dict[str, list[float]] = {}
    expected = {
        "list_ms": min(PAGE, count),
        "search_rare_ms": min(PAGE, count // NEEDLE_EVERY),
        "search_common_ms": min(PAGE, count),
    }
    queries: dict[str, Json] = {
        "list_ms": {"limit": PAGE},
        "search_rare_ms": {"limit": PAGE, "searchTerm": NEEDLE},
        "search_common_ms": {"limit": PAGE, "searchTerm": COMMON},
    }
    async with run.fake([text_reply("ok", deltas=1)]) as fake:
        for _ in range(QUICK_SPAWNS if ctx.quick else SPAWNS):
            spawned = time.perf_counter()
            async with run.server(fake.base_url, home=home) as server:
                await server.initialize()
                samples.setdefault("init_ms", []).append((time.perf_counter() - spawned) * 1000)
                await server.request("thread/list", {"limit": PAGE}, timeout_s=600)
                samples.setdefault("first_list_ms", []).append((time.perf_counter() - spawned) * 1000)
                for key, params in queries.items():
                    elapsed, got = await _timed(server, params)
                    samples.setdefault(key, []).append(elapsed)
                    if got != expected[key]:
                        point.notes.append(f"{key}: {got} threads, expected {expected[key]}")
                samples.setdefault("rss_mb", []).append(tree_rss_mb(server.pid))
    point.values = {key: statistics.median(values) for key, values in samples.items()}
    point.notes = sorted(set(point.notes))
    return point


CURVE = Curve(
    name="db-size",
    title="Start-up, thread/list and search against threads in the database",
    x_label="threads in the database",
    xs=(0, 10_000, 100_000, 1_000_000),
    quick_xs=(0, 10_000, 100_000),
    series=(
        Series("init_ms", "spawn → initialize", "ms"),
        Series("first_list_ms", "spawn → first thread/list", "ms"),
        Series("list_ms", f"thread/list ({PAGE})", "ms"),
        Series("search_rare_ms", f"searchTerm, 1 in {NEEDLE_EVERY:,} threads", "ms"),
        Series("search_common_ms", "searchTerm, every thread", "ms"),
        Series("rss_mb", "RSS after the requests", "MB"),
    ),
    measure=measure,
    prepare=threads_home,
    budget_s=300.0,
)
