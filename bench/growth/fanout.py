"""Notification latency (p50/p99) and RSS against WebSocket clients subscribed to one thread.

Latency is turn/start (sent by the owner) → the turn's agent-message delta at each client, over
every client and turn: the model round trip is in every sample alike, what grows is the fan-out.
All clients live in this one process, so its own reading speed is part of the largest points
(the report says so).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import AsyncIterator

from bench.growth.curve import Curve, Point, PointContext, Series
from bench.runner.framework import bounded_gather, percentile, run_turn, start_thread
from bench.runner.rpc import Json, StdioServer, WsClient
from bench.runner.targets import tree_rss_mb
from bench.runner.ws_workloads import DELTA, connect_when_ready, listen_url

from tether_testing.script import text_reply

TURNS, QUICK_TURNS = 20, 10
CONNECT_IN_FLIGHT = 32
# A loaded machine can take this long to start a server (the runner's 20 s is for quiet ones).
READY_S = 120.0
# Tether caps socket connections (512 by default); the bench raises the cap above its largest point.
EXTRA_ARGS = {"tether": ["--max-connections", "4096", "--max-connections-per-peer", "4096"]}


@contextlib.asynccontextmanager
async def _clients(server: StdioServer, listen: str, count: int) -> AsyncIterator[list[WsClient]]:
    first = await connect_when_ready(server, listen, READY_S)
    clients = [first]
    try:
        await first.initialize()

        async def one() -> WsClient:
            client = await WsClient.connect(listen)
            clients.append(client)
            await client.initialize()
            return client

        await bounded_gather([one] * (count - 1), CONNECT_IN_FLIGHT)
        yield clients
    finally:
        await asyncio.gather(*(client.close() for client in clients), return_exceptions=True)


async def measure(ctx: PointContext, count: int) -> Point:
    """`count` clients on one thread; per turn, turn/start → the delta at each client."""
    run = ctx.run
    turns = QUICK_TURNS if ctx.quick else TURNS
    listen = listen_url("unix://{socket}", run.folder)
    extra = ["--listen", listen, *EXTRA_ARGS.get(run.target.name, [])]
    async with (
        run.fake([text_reply("ok", deltas=1)]) as fake,
        run.server(fake.base_url, extra=extra) as server,
        _clients(server, listen, count) as clients,
    ):
        owner = clients[0]
        thread_id = await start_thread(owner, run.workspace)
        await run_turn(owner, thread_id)  # materializes the thread, so that others can resume it

        async def subscribe(client: WsClient) -> None:
            await client.request("thread/resume", {"threadId": thread_id, "excludeTurns": True})

        await bounded_gather([functools.partial(subscribe, c) for c in clients[1:]], CONNECT_IN_FLIGHT)
        arrivals: list[list[float]] = [[] for _ in clients]
        for client, seen in zip(clients, arrivals, strict=True):
            client.watch(DELTA, functools.partial(_arrived, seen))
        latencies: list[float] = []
        for _ in range(turns):
            latencies += await _one_turn(owner, clients, arrivals, thread_id)
        rss = tree_rss_mb(server.pid)
    point = Point(count, {"p50_ms": percentile(latencies, 50), "p99_ms": percentile(latencies, 99)})
    point.values |= {"max_ms": max(latencies), "rss_mb": rss}
    missing = count * turns - len(latencies)
    if missing:
        point.notes.append(f"{missing} of {count * turns} deltas did not arrive")
    return point


def _arrived(seen: list[float], _params: Json, at: float) -> None:
    seen.append(at)


async def _one_turn(
    owner: WsClient, clients: list[WsClient], arrivals: list[list[float]], thread_id: str
) -> list[float]:
    marks = [len(seen) for seen in arrivals]
    done = [c.expect("turn/completed", lambda p: p.get("threadId") == thread_id) for c in clients]
    started = time.perf_counter()
    await owner.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "go"}]})
    async with asyncio.timeout(120):
        await asyncio.gather(*done)
    return [(at - started) * 1000 for seen, mark in zip(arrivals, marks, strict=True) for at in seen[mark:]]


EXPLANATION = """
Linear in clients, for both, as it has to be: a notification is encoded once and then written to
every subscribed socket (`processor/subscriptions.py`), so the last of N clients waits behind N
writes, for each of the ~9 notifications of a turn. On a machine at load ~2.5: Tether p50 2.4,
4.1, 12.7 and 171 ms at 1, 10, 100 and 1,000 clients (p99 17, 9, 18, 342 ms); Codex 41, 39, 51,
339 ms (p99 203, 100, 88, 474 ms). The 1,000-client point is also bounded by the bench process,
which reads all 1,000 sockets on one event loop (so the server's own share is lower). Nothing
cheaper than one write per client per notification exists; the per-write constant belongs to the
streaming work (another helper), not to this curve. Rerun of Tether on a quiet machine (load <
3): p50 4.7, 5.5, 10.1 and 85 ms at 1, 10, 100 and 1,000 clients (p99 12, 14, 16 and 123 ms), RSS
57 → 98 MB with 1,000 clients.
"""

CURVE = Curve(
    name="fanout",
    title="Notification latency against WebSocket clients on one thread",
    x_label="clients subscribed",
    xs=(1, 10, 100, 1_000),
    quick_xs=(1, 10, 100),
    series=(
        Series("p50_ms", "turn/start → delta, p50", "ms"),
        Series("p99_ms", "turn/start → delta, p99", "ms"),
        Series("max_ms", "turn/start → delta, max", "ms"),
        Series("rss_mb", "RSS with the clients connected", "MB"),
    ),
    measure=measure,
    budget_s=300.0,
    explanation=EXPLANATION,
)
