"""W5 (per-command overhead of exec_command) and W6 (memory: idle and per loaded thread)."""

from __future__ import annotations

import asyncio
import itertools
import statistics

from bench.runner.framework import (
    Metric,
    RunContext,
    Sample,
    Workload,
    bounded_gather,
    run_turn,
    start_thread,
    until_serving,
)
from bench.runner.rpc import Json, StdioServer
from bench.runner.targets import tree_rss_mb

from tether_testing.script import function_call, reply, text_reply

W5_CALLS = 20
W5_MODES = {"full_ms": "danger-full-access", "ws_ms": "workspace-write"}
W6_THREADS = 100
W6_IN_FLIGHT = 20
SETTLE_S = 0.5


def _exec_script() -> list[Json]:
    call = {"cmd": "true", "login": False}
    calls = [reply(function_call("exec_command", call)) for _ in range(W5_CALLS)]
    return [*calls, text_reply("done", deltas=1)]


async def _exec_turn(server: StdioServer, ctx: RunContext, sandbox: str) -> tuple[float | None, str | None]:
    """One turn of W5_CALLS `true` commands; the median gap between command completions (ms)."""
    finished: list[tuple[float, Json]] = []

    def on_completed(params: Json, at: float) -> None:
        item = params.get("item") or {}
        if item.get("type") == "commandExecution":
            finished.append((at, item))

    server.watch("item/completed", on_completed)
    thread_id = await start_thread(server, ctx.workspace, sandbox=sandbox)
    await run_turn(server, thread_id)
    failed = [item for _, item in finished if item.get("status") != "completed" or item.get("exitCode") != 0]
    if failed:
        output = str(failed[0].get("aggregatedOutput") or "")[:160]
        return None, f"{sandbox}: {len(failed)}/{len(finished)} commands failed: {output!r}"
    if len(finished) != W5_CALLS:
        return None, f"{sandbox}: {len(finished)} commands ran, {W5_CALLS} were asked for"
    gaps = [(b - a) * 1000 for (a, _), (b, _) in itertools.pairwise(finished)]
    return statistics.median(gaps), None


async def exec_overhead(ctx: RunContext) -> Sample:
    """W5: per exec_command call (model round trip + command), full access and workspace-write."""
    sample = Sample()
    for key, sandbox in W5_MODES.items():
        # A fresh server per mode, so one mode's failures cannot skew the other's script position.
        async with ctx.fake(_exec_script()) as fake, ctx.server(fake.base_url) as server:
            await server.initialize()
            value, note = await _exec_turn(server, ctx, sandbox)
        sample.values[key] = value
        if note:
            sample.notes.append(note)
    return sample


async def memory(ctx: RunContext) -> Sample:
    """W6: RSS (process tree) after initialize, then per thread after many one-turn threads."""
    async with ctx.fake([text_reply("ok", deltas=1)]) as fake, ctx.server(fake.base_url) as server:
        await server.initialize()
        await until_serving(server)
        await asyncio.sleep(SETTLE_S)  # let start-up allocations and lazy work finish
        idle = tree_rss_mb(server.pid)

        async def one_thread() -> None:
            await run_turn(server, await start_thread(server, ctx.workspace))

        await bounded_gather([one_thread] * W6_THREADS, W6_IN_FLIGHT)
        await asyncio.sleep(SETTLE_S)
        loaded = tree_rss_mb(server.pid)
    return Sample({"idle_mb": idle, "per_thread_mb": (loaded - idle) / W6_THREADS})


WORKLOADS = (
    Workload(
        "W5",
        f"one turn with {W5_CALLS} sequential `exec_command true` calls (per call)",
        (
            Metric("full_ms", "per call, full access", "ms", 0.25, "~73 ms"),
            Metric("ws_ms", "per call, workspace-write", "ms", 0.25, "~110 ms"),
        ),
        exec_overhead,
    ),
    Workload(
        "W6",
        f"RSS idle, and per loaded thread after {W6_THREADS} threads x 1 turn",
        (
            Metric("idle_mb", "RSS idle", "MB", 1.0, "79 MB"),
            Metric("per_thread_mb", "RSS per loaded thread", "MB", 0.5, "~2 MB"),
        ),
        memory,
    ),
)
