"""Turn latency (p50/p99) and RSS against the number of threads loaded in one server."""

from __future__ import annotations

import asyncio
import time

from bench.growth.curve import Curve, Point, PointContext, Series
from bench.runner.framework import bounded_gather, percentile, run_turn, start_thread
from bench.runner.targets import tree_rss_mb

from tether_testing.script import text_reply

TURNS, QUICK_TURNS = 100, 30
IN_FLIGHT = 32
SETTLE_S = 0.5
# Loading stops here, so that a slow thread/start is reported with how far it got.
LOAD_BUDGET_S = 240.0


async def measure(ctx: PointContext, loaded: int) -> Point:
    """Start `loaded` threads (one of them the measured one), then time sequential turns on one."""
    run = ctx.run
    turns = QUICK_TURNS if ctx.quick else TURNS
    async with run.fake([text_reply("ok", deltas=1)]) as fake, run.server(fake.base_url) as server:
        await server.initialize()
        measured = await start_thread(server, run.workspace)  # the first start pays for lazy set-up
        started = time.perf_counter()

        started_count = 1

        async def one() -> None:
            nonlocal started_count
            await start_thread(server, run.workspace)
            started_count += 1

        try:
            async with asyncio.timeout(LOAD_BUDGET_S):
                await bounded_gather([one] * (loaded - 1), IN_FLIGHT)
        except TimeoutError:
            stop = f"{started_count:,} threads started in the {LOAD_BUDGET_S:.0f} s loading budget"
            return Point(loaded, stopped=stop)
        load_s = time.perf_counter() - started
        await run_turn(server, measured)  # warm-up: the first turn's costs are start-up's business
        latencies: list[float] = []
        for _ in range(turns):
            began = time.perf_counter()
            await run_turn(server, measured)
            latencies.append((time.perf_counter() - began) * 1000)
        await asyncio.sleep(SETTLE_S)  # lets the turn's deferred work finish before RSS is read
        rss = tree_rss_mb(server.pid)
    values: dict[str, float | None] = {
        "p50_ms": percentile(latencies, 50),
        "p99_ms": percentile(latencies, 99),
        "start_ms": load_s * 1000 / (loaded - 1) if loaded > 1 else None,
        "rss_mb": rss,
    }
    return Point(loaded, values)


EXPLANATION = """
Tether: flat. A turn touches only its own thread: threads are kept by id, a turn's events go to
that thread's subscribers, and nothing on the turn path walks the loaded threads. On a quiet
machine (load < 3) turn p50 was 3.7, 6.5 and 5.2 ms at 1, 100 and 1,000 threads. A started
thread that has not run a turn costs ~5 kB (101 - 96 MB for 1,000), linear as it must be;
`thread/start` stays under 1 ms each (0.4 ms at 1,000).

Codex: worse than linear, and it stops. `thread/start` slows as threads accumulate (26 ms each
for the first 100 on a quiet machine; only 332 of 1,000 started within the 240 s loading budget
under load), and turn latency rises with the count (p50 31 → 86 ms, p99 43 → 332 ms from 1 to
100 threads, quiet). Each loaded Codex thread is a live session (~1.1 MB: 165 → 275 MB for 100).
Not ours to fix; Tether needs no fix here.

Rerun of Tether on a quiet machine (load < 3): turn p50 6.1, 5.8, 5.8 and 6.0 ms at 1, 100, 1,000
and 10,000 loaded threads (p99 11 to 13 ms), `thread/start` 0.3 to 0.4 ms each, RSS 59 → 115 MB
at 10,000 (~5.6 kB a thread).

Rerun after issue 31 (2026-12-02, load < 1): turn p50 6.5 to 7.5 ms at every size, `thread/start`
0.7 to 1.1 ms each (0.9 to 1.3 the day before: the config layers and managed requirements Tether
reads since issue 28 were read and parsed again for every thread; they now are only when their
files change), RSS 60 → 124 MB at 10,000.
"""

CURVE = Curve(
    name="loaded-threads",
    title="Turn latency against loaded threads",
    x_label="loaded threads",
    xs=(1, 100, 1_000, 10_000),
    quick_xs=(1, 100, 1_000),
    series=(
        Series("p50_ms", "turn p50", "ms"),
        Series("p99_ms", "turn p99", "ms"),
        Series("start_ms", "thread/start, mean of the others", "ms"),
        Series("rss_mb", "RSS after the turns", "MB"),
    ),
    measure=measure,
    budget_s=300.0,
    explanation=EXPLANATION,
)
