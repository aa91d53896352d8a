"""W7: reading history after a restart (thread/list, searchTerm, thread/resume of a long thread),
and restarting on a large history (5,000 threads).

`prepare` fills two homes per target (untimed, once per invocation, or reused from the cache);
each run restarts the server on them and times the first requests it answers.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from pathlib import Path

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
from bench.runner.rpc import Json

from tether_testing.script import text_reply

W7_THREADS = 300
W7_MANY_THREADS = 5_000
W7_LONG_TURNS = 200
W7_PAGE = 50
W7_NEEDLE = "needle"
_NEEDLE_EVERY = 10
_IN_FLIGHT = 20


def _workspace(ctx: RunContext) -> Path:
    # Kept next to the prepared home: a reused home's threads still find their cwd.
    path = ctx.shared / "workspace"
    path.mkdir(exist_ok=True)
    return path


async def fill_history(ctx: RunContext) -> None:
    """Create W7_THREADS one-turn threads and one W7_LONG_TURNS-turn thread in the shared home."""
    async with (
        ctx.fake([text_reply("ok", deltas=1)]) as fake,
        ctx.server(fake.base_url, home=ctx.shared / "home") as server,
    ):
        await server.initialize()

        def one_thread(index: int) -> Callable[[], Awaitable[None]]:
            needle = f" {W7_NEEDLE}" if index % _NEEDLE_EVERY == 0 else ""

            async def job() -> None:
                thread_id = await start_thread(server, _workspace(ctx))
                await run_turn(server, thread_id, f"bench thread {index:03d}{needle}")

            return job

        await bounded_gather([one_thread(i) for i in range(W7_THREADS)], _IN_FLIGHT)
        long_id = await start_thread(server, _workspace(ctx))
        for turn in range(W7_LONG_TURNS):
            await run_turn(server, long_id, f"long thread turn {turn}")
    (ctx.shared / "long-thread-id").write_text(long_id)
    await _fill_many(ctx)


async def _fill_many(ctx: RunContext) -> None:
    """W7_MANY_THREADS one-turn threads in a second home (Codex: about 5 minutes, Tether less)."""
    async with (
        ctx.fake([text_reply("ok", deltas=1)]) as fake,
        ctx.server(fake.base_url, home=ctx.shared / "home-many") as server,
    ):
        await server.initialize()

        def one_thread(index: int) -> Callable[[], Awaitable[None]]:
            async def job() -> None:
                thread_id = await start_thread(server, _workspace(ctx))
                await run_turn(server, thread_id, f"many thread {index:04d}")

            return job

        await bounded_gather([one_thread(i) for i in range(W7_MANY_THREADS)], _IN_FLIGHT)


async def history_after_restart(ctx: RunContext) -> Sample:
    """W7: the first list, search and resume answered by a freshly restarted server; then a
    restart on the large history: its `initialize` and first `thread/list` page."""
    long_id = (ctx.shared / "long-thread-id").read_text().strip()
    sample = Sample()
    async with ctx.fake([text_reply("ok", deltas=1)]) as fake:
        async with ctx.server(fake.base_url, home=ctx.shared / "home") as server:
            await server.initialize()
            await until_serving(server)
            requests: dict[str, tuple[str, Json]] = {
                "list_ms": ("thread/list", {"limit": W7_PAGE}),
                "search_ms": ("thread/list", {"limit": W7_PAGE, "searchTerm": W7_NEEDLE}),
                "resume_ms": ("thread/resume", {"threadId": long_id}),
            }
            for key, (method, params) in requests.items():
                started = time.perf_counter()
                result = await server.request(method, params)
                sample.values[key] = (time.perf_counter() - started) * 1000
                sample.notes.extend(_check(key, result))
        started = time.perf_counter()
        async with ctx.server(fake.base_url, home=ctx.shared / "home-many") as server:
            await server.initialize()
            sample.values["many_init_ms"] = (time.perf_counter() - started) * 1000
            page = await server.request("thread/list", {"limit": W7_PAGE})
            sample.values["many_list_ms"] = (time.perf_counter() - started) * 1000
            sample.notes.extend(_check("many_list_ms", page))
    return sample


def _check(key: str, result: dict[str, object]) -> list[str]:
    expected = {
        "list_ms": W7_PAGE,
        "many_list_ms": W7_PAGE,
        "search_ms": W7_THREADS // _NEEDLE_EVERY,
        "resume_ms": W7_LONG_TURNS,
    }[key]
    if key == "resume_ms":
        thread = result.get("thread")
        got = len(thread.get("turns") or []) if isinstance(thread, dict) else 0
    else:
        data = result.get("data")
        got = len(data) if isinstance(data, list) else 0
    return [] if got == expected else [f"{key}: {got} entries, expected {expected}"]


WORKLOADS = (
    Workload(
        "W7",
        f"{W7_THREADS} threads then restart: list page, searchTerm, resume of a {W7_LONG_TURNS}-turn thread;"
        f" restart on {W7_MANY_THREADS:,} threads",
        (
            Metric("list_ms", f"thread/list page of {W7_PAGE}", "ms", 0.2, "67 ms"),
            Metric("search_ms", "thread/list with searchTerm", "ms", 0.2, "130 ms"),
            Metric("resume_ms", f"thread/resume ({W7_LONG_TURNS} turns)", "ms", 0.2, "173 ms"),
            Metric("many_init_ms", f"restart, {W7_MANY_THREADS:,} threads: spawn→initialize", "ms", 0.7, ""),
            Metric("many_list_ms", f"restart, {W7_MANY_THREADS:,} threads: spawn→thread/list", "ms", 1.0, ""),
        ),
        history_after_restart,
        prepare=fill_history,
    ),
)
