"""A logging WebSocket relay between a client and an app-server, for observing what a client sends.

`python -m tests.e2e.codex_tui.relay --listen PORT --upstream ws://HOST:PORT|unix://PATH --log FILE`
accepts WebSocket clients on loopback and opens one upstream connection per client; every text
frame is forwarded unchanged and appended to the log as one JSON line
`{"dir": "c2s"|"s2c", "conn": N, "msg": <the JSON-RPC message>}`.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import websockets
from websockets.asyncio.client import ClientConnection, connect, unix_connect
from websockets.asyncio.server import ServerConnection, serve


class Relay:
    """Forwards frames both ways and records them; `log` lines are flushed as they are written."""

    def __init__(
        self, upstream: str, log: TextIO | None = None, headers: dict[str, str] | None = None
    ) -> None:
        self.upstream = upstream
        self.log = log
        self.headers = headers or {}
        self.records: list[dict[str, Any]] = []
        self._conns = itertools.count(1)
        self._recorded = asyncio.Event()

    async def _open(self, client: ServerConnection) -> ClientConnection:
        extra = list(self.headers.items())
        auth = client.request.headers.get("Authorization") if client.request else None
        if auth:
            extra.append(("Authorization", auth))
        if self.upstream.startswith("unix://"):
            return await unix_connect(self.upstream[len("unix://") :], additional_headers=extra)
        return await connect(self.upstream, additional_headers=extra, max_size=None)

    def _record(self, direction: str, conn: int, frame: str | bytes) -> None:
        text = frame.decode() if isinstance(frame, bytes) else frame
        try:
            msg: Any = json.loads(text)
        except ValueError:
            msg = text
        record = {"dir": direction, "conn": conn, "msg": msg}
        self.records.append(record)
        self._recorded.set()
        if self.log is not None:
            self.log.write(json.dumps(record) + "\n")
            self.log.flush()

    async def until(self, done: Callable[[], bool], within_s: float) -> bool:
        """Wait, woken by each recorded frame, until `done()` holds; False when `within_s` passed."""
        try:
            async with asyncio.timeout(within_s):
                while not done():
                    self._recorded.clear()
                    await self._recorded.wait()
        except TimeoutError:
            return False
        return True

    def exchanges(self) -> list[tuple[str, dict[str, Any], dict[str, Any] | None]]:
        """Each client request `(method, request, answer or None)`, in the order they were sent."""
        answers = {
            (r["conn"], json.dumps(r["msg"]["id"])): r["msg"]
            for r in self.records
            if r["dir"] == "s2c"
            and isinstance(r["msg"], dict)
            and "id" in r["msg"]
            and "method" not in r["msg"]
        }
        out: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = []
        for r in self.records:
            msg = r["msg"]
            if r["dir"] == "c2s" and isinstance(msg, dict) and "method" in msg and "id" in msg:
                out.append((msg["method"], msg, answers.get((r["conn"], json.dumps(msg["id"])))))
        return out

    async def handle(self, client: ServerConnection) -> None:
        conn = next(self._conns)
        upstream = await self._open(client)

        async def pump(src: Any, dst: Any, direction: str) -> None:
            try:
                async for frame in src:
                    self._record(direction, conn, frame)
                    await dst.send(frame)
            except websockets.ConnectionClosed:
                pass
            finally:
                await dst.close()

        await asyncio.gather(pump(client, upstream, "c2s"), pump(upstream, client, "s2c"))


async def run(port: int, upstream: str, log_path: Path, ready: asyncio.Event | None = None) -> None:
    with log_path.open("a") as log:
        relay = Relay(upstream, log)
        async with serve(relay.handle, "127.0.0.1", port, max_size=None) as server:
            if ready is not None:
                ready.set()
            await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--listen", type=int, required=True)
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--log", type=Path, required=True)
    args = parser.parse_args()
    asyncio.run(run(args.listen, args.upstream, args.log))


if __name__ == "__main__":
    main()
