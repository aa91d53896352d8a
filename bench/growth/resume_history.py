"""`thread/resume` time and RSS against the length of the thread's history (turns).

Each point restarts the server on a prepared home and times the first `thread/resume` of the long
thread, with its turns, median of a few restarts, once the server has answered a first request.
One untimed resume comes first: it checks the turn count and lets Codex bring its projection of
the rollout up to date, as it would have been had the turns been played.
"""

from __future__ import annotations

import statistics
import time

from bench.growth.curve import Curve, Point, PointContext, Series
from bench.growth.homes import history_home
from bench.runner.targets import tree_rss_mb

from tether_testing.script import text_reply

SPAWNS, QUICK_SPAWNS = 3, 1


async def measure(ctx: PointContext, turns: int) -> Point:
    """Restart, then time `thread/resume` of a `turns`-turn thread (median of a few restarts)."""
    home, thread_id = await history_home(ctx, turns)
    run = ctx.run
    point = Point(turns)
    times: list[float] = []
    rss: list[float] = []
    async with run.fake([text_reply("ok", deltas=1)]) as fake:
        for spawn in range(1 + (QUICK_SPAWNS if ctx.quick else SPAWNS)):
            async with run.server(fake.base_url, home=home) as server:
                await server.initialize()
                # A server may answer `initialize` before it has loaded (Tether's stdio front):
                # one request that does not touch threads waits for it, so that the resume is
                # timed alone (start-up is the db-size curve's business).
                await server.request("config/read", {}, timeout_s=120)
                started = time.perf_counter()
                result = await server.request("thread/resume", {"threadId": thread_id}, timeout_s=600)
                elapsed = (time.perf_counter() - started) * 1000
                rss.append(tree_rss_mb(server.pid))
            got = len(result["thread"].get("turns") or [])
            if got != turns:
                point.notes.append(f"resume returned {got} turns, expected {turns}")
            if spawn > 0:
                times.append(elapsed)
    point.values = {
        "resume_ms": statistics.median(times),
        "per_turn_us": statistics.median(times) * 1000 / turns,
        "rss_mb": statistics.median(rss[1:]),
    }
    return point


EXPLANATION = """
Linear for Codex; sub-linear for Tether. A full `thread/resume` loads every turn and item of the
thread and returns them all, so its cost grows with the history. Tether on a quiet machine (load
< 2, timed from the request to the parsed answer in the bench client, once the restarted daemon has
answered a first request): 8, 12, 37 and 176 ms at 10, 100, 1,000 and 10,000 turns, 18 µs per turn
at 10,000 (three runs: 176-188 ms; issue 31's target is 200; before it: 11.6, 20.3, 101 and 1,568
ms). The daemon's 6.7 MB answer line is out after ~100 ms; the rest is the pipe and the client's
parse. What changed: turns are sent from their stored JSON without being validated again
(`processor/stored_turns.py`); the thread's model history is parsed when a turn first needs it,
not at the resume (`StoredHistory`); the cyclic collector stays paused until the answer is
encoded; the thread methods' module loads with the daemon rather than with the first thread
request; the model provider's background import waits until the request that opened the thread
is answered; and the bench client itself no longer copied the long line once per 64 kB chunk
(~70 ms of its own before). RSS grows with the turns held (+16 MB at 10,000). A client that pages
(`excludeTurns` then `thread/turns/list`) pays a constant. Codex (under load ~30) is linear at
7-11 ms per turn: 0.2 s at 10 turns, 6.7 s at 1,000 and 107 s at 10,000 — it rebuilds turns from
its rollout file.
"""

CURVE = Curve(
    name="resume-history",
    title="thread/resume time against history length",
    x_label="turns in the thread",
    xs=(10, 100, 1_000, 10_000),
    quick_xs=(10, 100, 1_000),
    series=(
        Series("resume_ms", "thread/resume after a restart", "ms"),
        Series("per_turn_us", "thread/resume per turn", "µs"),
        Series("rss_mb", "RSS after the resume", "MB"),
    ),
    measure=measure,
    prepare=history_home,
    budget_s=600.0,
    explanation=EXPLANATION,
)
