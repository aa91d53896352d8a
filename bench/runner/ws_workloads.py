"""W8: one thread watched by many WebSocket clients while a turn streams deltas."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import AsyncIterator
from pathlib import Path

from bench.runner.framework import Metric, RunContext, Sample, Workload, run_turn, start_thread
from bench.runner.rpc import StdioServer, WsClient
from bench.runner.targets import cpu_seconds

from tether_testing.script import message, reply, text_reply

W8_CLIENTS = 10
W8_DELTAS = 5_000
DELTA = "item/agentMessage/delta"
_READY_S = 20.0


class ListenUnsupported(RuntimeError):
    """The server exited (or never accepted) instead of listening."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def listen_url(template: str, folder: Path) -> str:
    """`template` with its {socket} (a path in `folder`) and {port} (a free loopback port) filled."""
    return template.format(socket=str(folder / "app.sock"), port=_free_port())


async def connect_when_ready(server: StdioServer, listen: str, ready_s: float = _READY_S) -> WsClient:
    """The first connection, once the server listens; ListenUnsupported when it never does."""
    deadline = time.monotonic() + ready_s
    while time.monotonic() < deadline:
        if server.proc.returncode is not None:
            raise ListenUnsupported(f"exited {server.proc.returncode}: {server.stderr_tail(2)}")
        try:
            return await WsClient.connect(listen)
        except OSError:
            await asyncio.sleep(0.02)  # polling for the listener to come up; nothing to wait on
    raise ListenUnsupported(f"nothing accepted on {listen} within {ready_s:.0f} s")


@contextlib.asynccontextmanager
async def _clients(server: StdioServer, listen: str) -> AsyncIterator[list[WsClient]]:
    clients: list[WsClient] = []
    try:
        for _ in range(W8_CLIENTS):
            client = await connect_when_ready(server, listen)
            clients.append(client)
            await client.initialize()
        yield clients
    finally:
        for client in clients:
            await client.close()


async def fan_out(ctx: RunContext) -> Sample:
    """W8: turn/start on the first client → `turn/completed` at the last of all clients."""
    script = [text_reply("warm", deltas=1), reply(message("tok " * W8_DELTAS, deltas=W8_DELTAS))]
    listen = listen_url(ctx.target.listen, ctx.folder)
    try:
        async with (
            ctx.fake(script) as fake,
            ctx.server(fake.base_url, extra=["--listen", listen]) as server,
            _clients(server, listen) as clients,
        ):
            return await _measure(ctx, clients, server.pid)
    except ListenUnsupported as exc:
        return Sample({"last_ms": None}, notes=[f"unsupported: {exc}"])


async def _measure(ctx: RunContext, clients: list[WsClient], pid: int) -> Sample:
    owner = clients[0]
    thread_id = await start_thread(owner, ctx.workspace)
    await run_turn(owner, thread_id)  # materializes the thread, so that others can resume it
    for client in clients[1:]:
        await client.request("thread/resume", {"threadId": thread_id, "excludeTurns": True})
    before = [client.counts.get(DELTA, 0) for client in clients]
    done = [client.expect("turn/completed", lambda p: p.get("threadId") == thread_id) for client in clients]
    cpu, client_cpu = cpu_seconds(pid), time.process_time()
    started = time.perf_counter()
    await owner.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "go"}]})
    async with asyncio.timeout(120):
        await asyncio.gather(*done)
    last = max(client.last_at["turn/completed"] for client in clients)
    sample = Sample({"last_ms": (last - started) * 1000})
    cpu, client_cpu = cpu_seconds(pid) - cpu, time.process_time() - client_cpu
    # The clients share this process: when their CPU time nears the wall time, they are the limit.
    sample.notes.append(f"server CPU {cpu * 1000:,.0f} ms, the clients' CPU {client_cpu * 1000:,.0f} ms")
    seen = [client.counts.get(DELTA, 0) - count for client, count in zip(clients, before, strict=True)]
    short = [count for count in seen if count != W8_DELTAS]
    if short:
        sample.notes.append(f"{len(short)} clients saw a delta count other than {W8_DELTAS}: {short[:3]}")
    return sample


WORKLOADS = (
    Workload(
        "W8",
        f"{W8_CLIENTS} WebSocket clients on one thread, {W8_DELTAS:,} deltas: last client's turn/completed",
        (Metric("last_ms", "last client's turn/completed", "ms", 0.2, "~1.3 s"),),
        fan_out,
    ),
)
