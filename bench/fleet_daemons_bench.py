"""Fleet benchmark (issue 30): three daemons on one PostgreSQL against one daemon on SQLite.

Run by hand (not in CI), from the repository root, as root or with `initdb` on PATH:

    .venv/bin/python -m bench.fleet_daemons_bench [--threads 100000] [--turns 100] [--reps 3]

A throwaway PostgreSQL cluster (tests/support/postgres.py: loopback, fsync off) and the fake
model (server/tether_testing) on this machine; every daemon is a real `tether app-server`
subprocess with a WebSocket listener, the fleet ones with `--fleet-listen` and one secret.

(a) turn: p50 of `turn/start` -> `turn/completed` of a trivial one-message turn, run by a client
    of the owner (local) and by a client of another node (forwarded), interleaved; also a lone
    daemon on SQLite and on PostgreSQL.
(b) list: `thread/list` (a page of 50) and with `searchTerm` (a word in one thread, a word in
    every thread) at `--threads` threads, on SQLite and on PostgreSQL. The threads are written
    through the store port before the daemons start (a preview and one completed turn each).
(c) fan-out: 10 clients on three nodes (4 on the owner, 3 on each other) subscribed to one
    thread; per delta, the time from its arrival at the owner's first client to its arrival at
    the last client (p50/p99 over `--fanout-turns` one-delta turns); the baseline has all 10
    clients on the owner.
(d) failover: SIGKILL of the owner -> the next turn completed by a client of another node
    (`thread/resume` there waits out the lease, then `turn/start`), with 10 s and 2 s leases.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import psycopg
from bench.fanout_bench import Client
from tests.support.postgres import Cluster
from websockets.asyncio.client import connect

from tether_server.store.base import Batch, ThreadRecord, ThreadStore, TurnRecord
from tether_server.store.postgres import PostgresThreadStore
from tether_server.store.sqlite import SqliteThreadStore
from tether_testing.fake_responses import FakeResponsesServer
from tether_testing.script import text_reply

NEEDLE = "zanzibar"  # in one thread's preview
COMMON = "bench"  # in every thread's preview
BASE_TIME = 1_780_000_000


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Stamping(Client):
    """Records when each delta (by seq) arrived."""

    def __init__(self, ws: Any) -> None:
        self.arrivals: dict[int, float] = {}
        super().__init__(ws)

    async def _read(self) -> None:
        async for frame in self.ws:
            now = time.perf_counter()
            message = json.loads(frame)
            method = message.get("method")
            if method == "item/agentMessage/delta":
                self.deltas += 1
                self.arrivals[message["seq"]] = now
            elif method == "turn/completed":
                self.completed.set()
            elif "id" in message and message["id"] in self.pending:
                self.pending.pop(message["id"]).set_result(message)


class Daemon:
    def __init__(self, proc: asyncio.subprocess.Process, url: str) -> None:
        self.proc, self.url = proc, url
        self.clients: list[Client] = []

    async def client(self) -> Stamping:
        client = Stamping(await connect(self.url, max_size=None, compression=None, open_timeout=60))
        await client.initialize()
        self.clients.append(client)
        return client

    async def stop(self, *, kill: bool = False) -> None:
        for client in self.clients:
            client.reader.cancel()
        if self.proc.returncode is None:
            self.proc.kill() if kill else self.proc.terminate()
        await self.proc.wait()


async def start_daemon(home: Path, model_url: str, *extra: str) -> Daemon:
    flags = [
        *("-c", 'model="gpt-test"', "-c", 'model_provider="mock"', "-c", 'model_providers.mock.name="mock"'),
        *(
            "-c",
            f'model_providers.mock.base_url="{model_url}"',
            "-c",
            "model_providers.mock.request_max_retries=0",
        ),
    ]
    os.makedirs(home, exist_ok=True)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tether_server", "app-server", "--log-level", "warning",
        "--listen", "ws://127.0.0.1:0", "--ws-auth", "none", *flags, *extra,
        stdin=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "TETHER_HOME": str(home)},
    )  # fmt: skip
    assert proc.stderr is not None
    websockets, said = False, []
    while line := (await proc.stderr.readline()).decode():
        said.append(line)
        websockets = websockets or "(WebSockets)" in line
        if websockets and line.startswith("listening on: "):
            _drain(proc.stderr)
            daemon = Daemon(proc, line.removeprefix("listening on: ").strip())
            try:  # answered once up: a fleet node's address is advertised
                await (await daemon.client()).request("thread/loaded/list", {})
            except BaseException:
                await daemon.stop(kill=True)  # never leave a daemon behind the bench
                raise
            return daemon
    raise RuntimeError(f"the daemon exited before listening ({' '.join(extra)}): {''.join(said[-5:])}")


_background: set[asyncio.Task[None]] = set()


def _drain(stream: asyncio.StreamReader) -> None:
    async def discard() -> None:
        while await stream.read(65536):
            pass

    task = asyncio.create_task(discard())
    _background.add(task)
    task.add_done_callback(_background.discard)


class Fleet:
    """Daemons on one PostgreSQL database, with fleet listeners and one secret."""

    def __init__(self, scratch: Path, model_url: str, db_url: str, lease_s: float) -> None:
        self.scratch, self.model_url, self.db_url, self.lease_s = scratch, model_url, db_url, lease_s
        self.secret = scratch / "fleet.secret"
        self.secret.write_bytes(os.urandom(48))

    async def node(self, name: str) -> Daemon:
        return await start_daemon(
            self.scratch / f"{name}-{uuid.uuid4().hex[:6]}", self.model_url,
            "--store", self.db_url, "--node-id", name, "--lease-seconds", str(self.lease_s),
            "--fleet-listen", "ws://127.0.0.1:0", "--fleet-secret-file", str(self.secret),
        )  # fmt: skip


async def run_turn(client: Client, fake: FakeResponsesServer, tid: str, text: str = "hi") -> float:
    """Seconds from turn/start to this client's turn/completed."""
    fake.add(text_reply(text, deltas=1))
    # The owner writes a little after turn/completed: start from a quiet thread, so neither path
    # pays for the other's tail.
    await asyncio.sleep(0.05)
    client.completed.clear()
    began = time.perf_counter()
    await client.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": text}]})
    await client.completed.wait()
    return time.perf_counter() - began


async def new_thread(client: Client, fake: FakeResponsesServer, cwd: Path) -> str:
    tid: str = (await client.request("thread/start", {"cwd": str(cwd)}))["thread"]["id"]
    await run_turn(client, fake, tid, "placed")  # the first write takes the lease
    return tid


async def bench_turns(fleet: Fleet, fake: FakeResponsesServer, cwd: Path, turns: int) -> dict[str, float]:
    a, b = await fleet.node("turn-a"), await fleet.node("turn-b")
    try:
        local, remote = await a.client(), await b.client()
        tid = await new_thread(local, fake, cwd)
        await remote.request("thread/resume", {"threadId": tid})
        for _ in range(5):  # warm both paths (imports, relay connection, prepared statements)
            await run_turn(local, fake, tid)
            await run_turn(remote, fake, tid)
        times: dict[str, list[float]] = {"local": [], "forwarded": []}
        for _ in range(turns):
            times["local"].append(await run_turn(local, fake, tid))
            times["forwarded"].append(await run_turn(remote, fake, tid))
        result = {k: statistics.median(v) * 1000 for k, v in times.items()}
        # Paired: each forwarded turn against the local turn just before it, so that the load of
        # a shared machine, which drifts, weighs on both alike.
        pairs = [f - lo for lo, f in zip(times["local"], times["forwarded"], strict=True)]
        result["paired"] = statistics.median(pairs) * 1000
        return result
    finally:
        await asyncio.gather(a.stop(), b.stop())


async def bench_lone_turns(daemon: Daemon, fake: FakeResponsesServer, cwd: Path, turns: int) -> float:
    client = await daemon.client()
    tid = await new_thread(client, fake, cwd)
    for _ in range(5):
        await run_turn(client, fake, tid)
    return statistics.median([await run_turn(client, fake, tid) for _ in range(turns)]) * 1000


async def seed(store: ThreadStore, count: int) -> float:
    """`count` listed threads (a preview, one completed turn), written through the store port."""
    began = time.perf_counter()
    needle_at = count // 2

    async def one(i: int) -> None:
        tid = str(uuid.UUID(int=(0x0190_0000_0000_7000_8000_0000_0000_0000 | i)))
        word = f" {NEEDLE}" if i == needle_at else ""
        at = BASE_TIME + i
        record = ThreadRecord(
            tid, at, at, at, "/srv/project", "gpt-test", "openai", preview=f"{COMMON} thread {i}{word}"
        )
        await store.commit(
            Batch(thread=record, turns=[TurnRecord(tid, f"turn-{i}", 0, "completed", None, at, at)])
        )

    for start in range(0, count, 64):
        await asyncio.gather(*(one(i) for i in range(start, min(count, start + 64))))
    return time.perf_counter() - began


async def bench_list(daemon: Daemon, samples: int) -> dict[str, float]:
    client = await daemon.client()
    cases: dict[str, dict[str, Any]] = {
        "thread/list": {"limit": 50},
        f"searchTerm {NEEDLE!r} (1 thread)": {"limit": 50, "searchTerm": NEEDLE},
        f"searchTerm {COMMON!r} (every thread)": {"limit": 50, "searchTerm": COMMON},
    }
    out: dict[str, float] = {}
    for name, params in cases.items():
        await client.request("thread/list", params)  # warm
        times = []
        for _ in range(samples):
            began = time.perf_counter()
            page = await client.request("thread/list", params)
            times.append(time.perf_counter() - began)
        assert page["data"], name
        out[name] = statistics.median(times) * 1000
    return out


async def bench_fanout(
    fleet: Fleet, fake: FakeResponsesServer, cwd: Path, turns: int, *, spread_out: bool
) -> tuple[float, float, int]:
    """10 clients of one thread, spread over three nodes or (the baseline) all on its owner."""
    nodes = [await fleet.node(f"fan-{n}") for n in "abc"]
    try:
        spread = [nodes[0]] * 4 + [nodes[1]] * 3 + [nodes[2]] * 3 if spread_out else [nodes[0]] * 10
        clients = [await node.client() for node in spread]
        tid = await new_thread(clients[0], fake, cwd)
        for client in clients:
            await client.request("thread/resume", {"threadId": tid})
        lags: list[float] = []
        for _ in range(turns):  # one delta a turn: each is measured alone, not behind a burst
            for client in clients:
                client.arrivals.clear()
                client.completed.clear()
            fake.add(text_reply("one delta", deltas=1))
            await clients[0].request(
                "turn/start", {"threadId": tid, "input": [{"type": "text", "text": "go"}]}
            )
            await asyncio.gather(*(c.completed.wait() for c in clients))
            for seq, first in clients[0].arrivals.items():
                lags.append(max(c.arrivals[seq] for c in clients) - first)
        return _pct(lags, 0.5) * 1000, _pct(lags, 0.99) * 1000, len(lags)
    finally:
        await asyncio.gather(*(n.stop() for n in nodes))


async def bench_failover(fleet: Fleet, fake: FakeResponsesServer, cwd: Path, reps: int) -> list[float]:
    times = []
    survivor = await fleet.node("fail-b")
    try:
        for rep in range(reps):
            owner = await fleet.node(f"fail-a{rep}")
            local = await owner.client()
            tid = await new_thread(local, fake, cwd)
            watcher = await survivor.client()
            await watcher.request("thread/resume", {"threadId": tid})
            killed = time.perf_counter()
            await owner.stop(kill=True)
            while True:  # the relay may still be ending: retry as a client would
                try:
                    await watcher.request("thread/resume", {"threadId": tid})
                    break
                except RuntimeError:
                    continue
            await run_turn(watcher, fake, tid, "after the owner died")
            times.append(time.perf_counter() - killed)
    finally:
        await survivor.stop()
    return times


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=100_000)
    parser.add_argument("--turns", type=int, default=100, help="turns per path for (a)")
    parser.add_argument("--fanout-turns", type=int, default=100, help="one-delta turns for (c)")
    parser.add_argument("--reps", type=int, default=3, help="failovers per lease for (d)")
    parser.add_argument("--only", default="abcd")
    args = parser.parse_args()
    cluster = Cluster.start()
    try:
        with tempfile.TemporaryDirectory(prefix="fleet-bench-") as tmp:
            scratch = Path(tmp)
            cwd = scratch / "project"
            cwd.mkdir()
            async with FakeResponsesServer() as fake:
                await _run(args, cluster, scratch, cwd, fake)
    finally:
        cluster.stop()


async def _run(
    args: argparse.Namespace, cluster: Cluster, scratch: Path, cwd: Path, fake: FakeResponsesServer
) -> None:
    print(f"# fleet bench: {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}", flush=True)
    if "a" in args.only:
        fleet = Fleet(scratch, fake.base_url, cluster.new_database(), 10)
        turns = await bench_turns(fleet, fake, cwd, args.turns)
        lone_sqlite = await start_daemon(scratch / "lone-sqlite", fake.base_url)
        lone_pg = await start_daemon(scratch / "lone-pg", fake.base_url, "--store", cluster.new_database())
        try:
            sqlite_ms = await bench_lone_turns(lone_sqlite, fake, cwd, args.turns)
            pg_ms = await bench_lone_turns(lone_pg, fake, cwd, args.turns)
        finally:
            await asyncio.gather(lone_sqlite.stop(), lone_pg.stop())
        print(
            f"(a) turn p50: fleet local {turns['local']:.1f} ms, forwarded {turns['forwarded']:.1f} ms "
            f"(+{turns['forwarded'] - turns['local']:.1f} ms; paired median +{turns['paired']:.1f} ms); "
            f"lone SQLite {sqlite_ms:.1f} ms, "
            f"lone PostgreSQL {pg_ms:.1f} ms",
            flush=True,
        )
    if "b" in args.only:
        db = cluster.new_database()
        sqlite_home = scratch / "list-sqlite"
        for store in (SqliteThreadStore(sqlite_home / "tether.sqlite"), PostgresThreadStore(db)):
            await store.open()
            try:
                took = await seed(store, args.threads)
            finally:
                await store.close()
            if isinstance(store, PostgresThreadStore):
                # What autovacuum does after a bulk load: without statistics the planner looks a
                # common term up through the trigram index first (0.4 s at 5k threads).
                with psycopg.connect(db, autocommit=True) as conn:
                    conn.execute("ANALYZE")
            print(
                f"(b) seeded {args.threads} threads into {type(store).__name__} in {took:.0f} s", flush=True
            )
        for name, daemon in (
            ("SQLite", await start_daemon(sqlite_home, fake.base_url)),
            ("PostgreSQL", await start_daemon(scratch / "list-pg", fake.base_url, "--store", db)),
        ):
            try:
                for case, ms in (await bench_list(daemon, 20)).items():
                    print(f"(b) {name} {args.threads} threads: {case} p50 {ms:.1f} ms", flush=True)
            finally:
                await daemon.stop()
    if "c" in args.only:
        fleet = Fleet(scratch, fake.base_url, cluster.new_database(), 10)
        for spread_out, where in ((True, "on 3 nodes (4/3/3)"), (False, "all on the owner")):
            p50, p99, n = await bench_fanout(fleet, fake, cwd, args.fanout_turns, spread_out=spread_out)
            print(f"(c) fan-out, 10 clients {where}: owner's client -> last client p50 {p50:.2f} ms, "
                  f"p99 {p99:.2f} ms ({n} deltas)", flush=True)  # fmt: skip
    if "d" in args.only:
        for lease in (10.0, 2.0):
            fleet = Fleet(scratch, fake.base_url, cluster.new_database(), lease)
            times = await bench_failover(fleet, fake, cwd, args.reps)
            shown = ", ".join(f"{t:.2f}" for t in times)
            print(f"(d) failover, lease {lease:g} s: SIGKILL -> next turn completed elsewhere: {shown} s "
                  f"(median {statistics.median(times):.2f} s)", flush=True)  # fmt: skip


if __name__ == "__main__":
    asyncio.run(main())
