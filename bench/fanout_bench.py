"""Fan-out and idle-connection benchmark of the WebSocket listener.

Run: .venv/bin/python bench/fanout_bench.py [--clients 10] [--deltas 5000] [--idle 1000]

1. `--clients` WebSocket clients subscribe to one thread; a turn streams `--deltas` deltas from the
   fake model; reported: time from `turn/start` until the last client has `turn/completed`.
2. `--idle` initialized WebSocket connections held open; reported: the daemon's RSS before and after.
Target (issue 6): 1,000 idle connections under 200 MB RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from tether_testing.fake_responses import FakeResponsesServer
from tether_testing.script import text_reply


class Client:
    """A minimal JSON-RPC client over WebSocket (no schema checks: the bench measures the server)."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.ids = itertools.count(1)
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.completed = asyncio.Event()
        self.deltas = 0
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for frame in self.ws:
            message = json.loads(frame)
            method = message.get("method")
            if method == "item/agentMessage/delta":
                self.deltas += 1
            elif method == "turn/completed":
                self.completed.set()
            elif "id" in message and message["id"] in self.pending:
                self.pending.pop(message["id"]).set_result(message)

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        rid = next(self.ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[rid] = future
        await self.ws.send(json.dumps({"id": rid, "method": method, "params": params}))
        reply = await future
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        result: dict[str, Any] = reply["result"]
        return result

    async def initialize(self) -> None:
        await self.request("initialize", {"clientInfo": {"name": "bench", "title": None, "version": "0"}})
        await self.ws.send(json.dumps({"method": "initialized"}))

    async def close(self) -> None:
        await self.ws.close()
        await self.reader


async def start_daemon(home: Path, base_url: str) -> tuple[asyncio.subprocess.Process, str]:
    flags = [
        *("-c", 'model="gpt-test"', "-c", 'model_provider="mock"', "-c", 'model_providers.mock.name="mock"'),
        *(
            "-c",
            f'model_providers.mock.base_url="{base_url}"',
            "-c",
            "model_providers.mock.request_max_retries=0",
        ),
    ]
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        *("-m", "tether_server", "app-server", "--listen", "ws://127.0.0.1:0", "--log-level", "warning"),
        *flags,
        stdin=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "TETHER_HOME": str(home)},
    )
    assert proc.stderr is not None
    while line := (await proc.stderr.readline()).decode():
        if line.startswith("listening on: "):
            _background.add(asyncio.create_task(_discard(proc.stderr)))
            return proc, line.removeprefix("listening on: ").strip()
    raise RuntimeError("the daemon exited before listening")


_background: set[asyncio.Task[None]] = set()


async def _discard(stream: asyncio.StreamReader) -> None:
    while await stream.read(65536):
        pass


async def open_client(url: str) -> Client:
    ws = await connect(url, max_size=None, compression=None, open_timeout=60)
    client = Client(ws)
    await client.initialize()
    return client


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def fanout(url: str, fake: FakeResponsesServer, cwd: Path, clients: int, deltas: int) -> float:
    owner = await open_client(url)
    fake.add(text_reply("warm-up"))
    thread_id = (await owner.request("thread/start", {"cwd": str(cwd)}))["thread"]["id"]
    await owner.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "one"}]})
    await owner.completed.wait()
    owner.completed.clear()
    owner.deltas = 0
    others = [await open_client(url) for _ in range(clients - 1)]
    for client in others:
        await client.request("thread/resume", {"threadId": thread_id})
    fake.add(text_reply("d" * (deltas * 8), deltas=deltas))
    started = time.perf_counter()
    await owner.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "two"}]})
    everyone = [owner, *others]
    await asyncio.gather(*(c.completed.wait() for c in everyone))
    elapsed = time.perf_counter() - started
    assert all(c.deltas == deltas for c in everyone), [c.deltas for c in everyone]
    for client in everyone:
        await client.close()
    return elapsed


async def idle(url: str, pid: int, count: int) -> tuple[float, float]:
    before = rss_mb(pid)
    held = []
    for start in range(0, count, 100):
        held += await asyncio.gather(*(open_client(url) for _ in range(min(100, count - start))))
    after = rss_mb(pid)
    await asyncio.gather(*(c.close() for c in held))
    return before, after


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=10)
    parser.add_argument("--deltas", type=int, default=5000)
    parser.add_argument("--idle", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        home, cwd = Path(scratch, "home"), Path(scratch, "project")
        os.mkdir(cwd)
        async with FakeResponsesServer() as fake:
            proc, url = await start_daemon(home, fake.base_url)
            try:
                elapsed = await fanout(url, fake, cwd, args.clients, args.deltas)
                print(
                    f"fan-out: {args.clients} clients x {args.deltas} deltas, "
                    f"last turn/completed after {elapsed:.2f} s"
                )
                before, after = await idle(url, proc.pid, args.idle)
                print(f"idle: {args.idle} connections, daemon RSS {before:.1f} MB -> {after:.1f} MB")
            finally:
                proc.terminate()
                await proc.wait()


if __name__ == "__main__":
    asyncio.run(main())
