"""W1-W4: start-up, turn latency, streaming throughput, concurrent turns."""

from __future__ import annotations

import asyncio
import dataclasses
import statistics
import time

from bench.runner.framework import (
    Metric,
    RunContext,
    Sample,
    Workload,
    percentile,
    run_turn,
    start_thread,
)
from bench.runner.targets import FLOOR_TEMPLATE, Target, cpu_seconds

from tether_testing.script import message, reply, text_reply

DELTA = "item/agentMessage/delta"
W1_SPAWNS = 3
W2_TURNS = 50
W3_DELTAS = 20_000
W4_THREADS, W4_TURNS = 20, 5


async def spawn_to_initialize(ctx: RunContext) -> Sample:
    """W1: medians over a few spawns: exec → `initialize` answered, exec → the first `thread/start`
    answered (ready for work), stdin EOF → process exit, and EOF right after `initialize` → exit."""
    inits: list[float] = []
    readies: list[float] = []
    exits: list[float] = []
    early_exits: list[float] = []
    async with ctx.fake([text_reply("ok", deltas=1)]) as fake:
        for _ in range(W1_SPAWNS):
            started = time.perf_counter()
            async with ctx.server(fake.base_url, home=ctx.shared / "home") as server:
                await server.initialize()
                inits.append((time.perf_counter() - started) * 1000)
                await start_thread(server, ctx.workspace)
                readies.append((time.perf_counter() - started) * 1000)
                eof = time.perf_counter()
                await server.close()
                exits.append((time.perf_counter() - eof) * 1000)
            # A client that checks the server and quits: EOF right after the handshake, while
            # the daemon may still be loading.
            async with ctx.server(fake.base_url, home=ctx.shared / "home") as server:
                await server.initialize()
                eof = time.perf_counter()
                await server.close()
                early_exits.append((time.perf_counter() - eof) * 1000)
    return Sample(
        {
            "init_ms": statistics.median(inits),
            "ready_ms": statistics.median(readies),
            "exit_ms": statistics.median(exits),
            "early_exit_ms": statistics.median(early_exits),
        }
    )


async def sequential_turns(ctx: RunContext) -> Sample:
    """W2: one-delta turns one after another on one thread; turn/start → turn/completed."""
    async with ctx.fake([text_reply("ok", deltas=1)]) as fake, ctx.server(fake.base_url) as server:
        await server.initialize()
        thread_id = await start_thread(server, ctx.workspace)
        await run_turn(server, thread_id)  # warm-up: first-turn costs are W1's business
        latencies: list[float] = []
        for _ in range(W2_TURNS):
            started = time.perf_counter()
            await run_turn(server, thread_id)
            latencies.append((time.perf_counter() - started) * 1000)
    return Sample({"p50_ms": percentile(latencies, 50), "p95_ms": percentile(latencies, 95)})


@dataclasses.dataclass(frozen=True)
class _Streamed:
    seen: int
    started: float
    first: float
    last: float
    completed: float
    cpu_s: float  # the server's CPU time during the turn


async def _stream_turn(ctx: RunContext, base_url: str) -> _Streamed:
    """One W3 turn, timed at the client."""
    async with ctx.server(base_url) as server:
        await server.initialize()
        thread_id = await start_thread(server, ctx.workspace)
        cpu = cpu_seconds(server.pid)
        started = time.perf_counter()
        await run_turn(server, thread_id)
        cpu = cpu_seconds(server.pid) - cpu
        seen = server.counts.get(DELTA, 0)
        first, last = server.first_at.get(DELTA, started), server.last_at.get(DELTA, started)
        return _Streamed(seen, started, first, last, server.last_at["turn/completed"], cpu)


async def streaming(ctx: RunContext) -> Sample:
    """W3: one turn streaming many deltas; deltas/s from turn/start to the last delta.

    The floor (a trivial Python JSONL server, `floor.py`) streams the same turn right after, so
    each repetition also gives the target's rate as a share of what a minimal Python server does.
    """
    script = [reply(message("tok " * W3_DELTAS, deltas=W3_DELTAS))]
    async with ctx.fake(script) as fake:
        run = await _stream_turn(ctx, fake.base_url)
        floor_ctx = dataclasses.replace(ctx, target=Target("floor", FLOOR_TEMPLATE), on_spawn=None)
        floor = await _stream_turn(floor_ctx, fake.base_url)
    rate = run.seen / (run.last - run.started) if run.seen else None
    floor_rate = floor.seen / (floor.last - floor.started) if floor.seen else None
    sample = Sample(
        {
            "deltas_per_s": rate,
            "floor_pct": 100 * rate / floor_rate if rate and floor_rate else None,
            "last_delta_to_completed_ms": (run.completed - run.last) * 1000 if run.seen else None,
            "floor_deltas_per_s": floor_rate,
        }
    )
    sample.notes.append(
        f"turn/start→first delta {(run.first - run.started) * 1000:,.0f} ms, "
        f"first→last delta {max(run.seen - 1, 0) / max(run.last - run.first, 1e-9):,.0f}/s, "
        f"server CPU {run.cpu_s * 1000:,.0f} ms (floor {floor.cpu_s * 1000:,.0f} ms)"
    )
    if run.seen != W3_DELTAS or floor.seen != W3_DELTAS:
        sample.notes.append(f"{run.seen} (floor {floor.seen}) deltas arrived, {W3_DELTAS} were streamed")
    return sample


async def concurrent_turns(ctx: RunContext) -> Sample:
    """W4: many threads each running a few turns back to back, all at once, on one connection."""
    async with ctx.fake([text_reply("ok", deltas=1)]) as fake, ctx.server(fake.base_url) as server:
        await server.initialize()
        threads = [await start_thread(server, ctx.workspace) for _ in range(W4_THREADS)]

        async def turns_on(thread_id: str) -> None:
            for _ in range(W4_TURNS):
                await run_turn(server, thread_id)

        started = time.perf_counter()
        await asyncio.gather(*(turns_on(thread_id) for thread_id in threads))
        elapsed = time.perf_counter() - started
    return Sample({"turns_per_s": W4_THREADS * W4_TURNS / elapsed})


WORKLOADS = (
    Workload(
        "W1",
        "spawn → initialize answered, → first thread/start answered; stdin EOF → exit",
        (
            Metric("init_ms", "spawn→initialize", "ms", 0.7, "~55 ms"),
            Metric("ready_ms", "spawn→first thread/start", "ms", 1.0, "~70 ms"),
            Metric("exit_ms", "stdin EOF→exit", "ms", 1.0, "~4 ms"),
            Metric("early_exit_ms", "EOF after initialize→exit", "ms", 1.0, "~14 ms"),
        ),
        spawn_to_initialize,
    ),
    Workload(
        "W2",
        f"{W2_TURNS} sequential one-delta turns on one thread",
        (
            Metric("p50_ms", "turn p50", "ms", 0.1, "~66 ms"),
            Metric("p95_ms", "turn p95", "ms", 0.1, "~78 ms"),
        ),
        sequential_turns,
    ),
    Workload(
        "W3",
        f"one turn streaming {W3_DELTAS:,} deltas",
        (
            Metric("deltas_per_s", "deltas/s", "1/s", 5.0, "~19,600/s", higher_is_better=True),
            Metric("floor_pct", "deltas/s, % of the floor", "%", 70.0, "", True, absolute=True),
            Metric("last_delta_to_completed_ms", "last delta → turn/completed", "ms", 1.0, "~3.4 ms"),
            Metric("floor_deltas_per_s", "floor deltas/s (trivial server)", "1/s", None, ""),
        ),
        streaming,
    ),
    Workload(
        "W4",
        f"{W4_THREADS} threads x {W4_TURNS} turns at once, one connection",
        (Metric("turns_per_s", "turns/s", "1/s", 5.0, "~28/s", higher_is_better=True),),
        concurrent_turns,
    ),
)
