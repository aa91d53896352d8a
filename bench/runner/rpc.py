"""A lean JSON-RPC client for app-servers, over stdio (a child process) or WebSocket.

The client must never be what a workload measures, so a message is parsed once with orjson and
dispatched with a few dict look-ups; per-method counts and the arrival time of the latest message
of each method are kept for throughput workloads.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from bench.runner import rawws

Json = dict[str, Any]
Predicate = Callable[[Json], bool]
CLIENT_INFO = {"name": "tether_bench", "title": "Tether bench", "version": "0.1.0"}
_READ_CHUNK = 1 << 18
_BIG_MESSAGE = 1 << 20


class RpcError(Exception):
    """The server answered a request with a JSON-RPC error."""

    def __init__(self, method: str, error: Json) -> None:
        super().__init__(f"{method}: {error.get('code')} {error.get('message')}")
        self.error = error


class RpcPeer:
    """Requests, expected notifications and counters; subclasses move the bytes."""

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[str, asyncio.Future[Json]]] = {}
        self._expected: dict[str, list[tuple[Predicate, asyncio.Future[Json]]]] = {}
        self.counts: dict[str, int] = {}
        self.last_at: dict[str, float] = {}
        self.first_at: dict[str, float] = {}
        self.server_requests: list[Json] = []
        self._watchers: dict[str, list[Callable[[Json, float], None]]] = {}
        self.closed = asyncio.Event()

    def _send(self, data: bytes) -> None:
        raise NotImplementedError

    def _deliver(self, message: Json) -> None:
        method = message.get("method")
        if method is None:
            self._answer(message)
            return
        if "id" in message:
            self.server_requests.append(message)
            return
        now = time.perf_counter()
        count = self.counts.get(method, 0)
        if count == 0:
            self.first_at[method] = now
        self.counts[method] = count + 1
        self.last_at[method] = now
        waiters = self._expected.get(method)
        if waiters:
            self._resolve(waiters, message)
        for watcher in self._watchers.get(method, ()):
            watcher(message.get("params") or {}, now)

    @staticmethod
    def _resolve(waiters: list[tuple[Predicate, asyncio.Future[Json]]], message: Json) -> None:
        params = message.get("params") or {}
        for entry in list(waiters):
            predicate, future = entry
            if future.done():
                waiters.remove(entry)
            elif predicate(params):
                future.set_result(params)
                waiters.remove(entry)

    def _answer(self, message: Json) -> None:
        pending = self._pending.pop(message.get("id"), None)  # type: ignore[arg-type]
        if pending is None or pending[1].done():
            return
        method, future = pending
        if "error" in message:
            future.set_exception(RpcError(method, message["error"]))
        else:
            future.set_result(message.get("result") or {})

    def _fail_all(self) -> None:
        self.closed.set()
        for method, future in self._pending.values():
            if not future.done():
                future.set_exception(ConnectionError(f"connection closed before {method} was answered"))
        for waiters in self._expected.values():
            for _, future in waiters:
                if not future.done():
                    future.set_exception(ConnectionError("connection closed"))

    def expect(self, method: str, predicate: Predicate = lambda _p: True) -> asyncio.Future[Json]:
        """A future for the params of the next `method` notification matching `predicate`.

        Register it before sending the request that causes the notification.
        """
        future: asyncio.Future[Json] = asyncio.get_running_loop().create_future()
        if self.closed.is_set():
            future.set_exception(ConnectionError("connection closed"))
        self._expected.setdefault(method, []).append((predicate, future))
        return future

    def watch(self, method: str, callback: Callable[[Json, float], None]) -> None:
        """Call `callback(params, arrival_time)` for every `method` notification from now on."""
        self._watchers.setdefault(method, []).append(callback)

    def notify(self, method: str, params: Json | None = None) -> None:
        """Send a notification."""
        message: Json = {"method": method}
        if params is not None:
            message["params"] = params
        self._send(orjson.dumps(message))

    def request_nowait(self, method: str, params: Json | None = None) -> asyncio.Future[Json]:
        """Send a request; the future resolves to its result (or raises `RpcError`)."""
        rid = next(self._ids)
        future: asyncio.Future[Json] = asyncio.get_running_loop().create_future()
        if self.closed.is_set():
            future.set_exception(ConnectionError(f"connection closed before {method} was sent"))
            return future
        self._pending[rid] = (method, future)
        self._send(orjson.dumps({"id": rid, "method": method, "params": params or {}}))
        return future

    async def request(self, method: str, params: Json | None = None, *, timeout_s: float = 120.0) -> Json:
        """Send a request and wait for its result."""
        async with asyncio.timeout(timeout_s):
            return await self.request_nowait(method, params)

    async def initialize(self) -> Json:
        """The handshake: `initialize`, then the `initialized` notification."""
        result = await self.request("initialize", {"clientInfo": CLIENT_INFO})
        self.notify("initialized")
        return result

    def feed_lines(self, buffer: bytes) -> bytes:
        """Deliver every complete JSONL line in `buffer`; returns the incomplete tail."""
        lines = buffer.split(b"\n")
        for line in lines[:-1]:
            if line:
                self._deliver_raw(line)
        return lines[-1]

    def _deliver_raw(self, raw: bytes | str) -> None:
        # A large answer (a long thread's turns) becomes ~100,000 objects in one go: the client's
        # own collector walking them (and the rest of its heap) is not the server's time.
        pause = len(raw) > _BIG_MESSAGE and gc.isenabled()
        if pause:
            gc.disable()
        try:
            message = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return
        finally:
            if pause:
                gc.enable()
        if isinstance(message, dict):
            self._deliver(message)


class StdioServer(RpcPeer):
    """An app-server child process spoken to over its stdin/stdout (JSONL)."""

    def __init__(self, proc: asyncio.subprocess.Process, stderr_path: Path) -> None:
        super().__init__()
        self.proc = proc
        self.stderr_path = stderr_path
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def spawn(cls, argv: list[str], stderr_path: Path, cwd: Path) -> StdioServer:
        """Start `argv` with piped stdio; stderr goes to `stderr_path`."""
        with stderr_path.open("ab") as stderr:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=stderr,
                cwd=str(cwd),
                # The pipe is drained in large reads: at the default 64 kB the reader pauses the
                # transport every 128 kB of a long answer line.
                limit=_READ_CHUNK * 4,
            )
        return cls(proc, stderr_path)

    @property
    def pid(self) -> int:
        """The server's process id."""
        return self.proc.pid

    def _send(self, data: bytes) -> None:
        stdin = self.proc.stdin
        if stdin is None or stdin.is_closing():
            raise ConnectionError("the server's stdin is closed")
        stdin.write(data + b"\n")

    async def _read(self) -> None:
        stdout = self.proc.stdout
        # A long line's chunks are joined once, when its end arrives: joining the tail with every
        # chunk copied a 6.7 MB answer ~50 times over (its pipe delivers 64-128 kB at a time),
        # ~100 ms of the client's own in a 10,000-turn resume.
        pending: list[bytes] = []
        try:
            while stdout is not None and (chunk := await stdout.read(_READ_CHUNK)):
                pending.append(chunk)
                if b"\n" in chunk:
                    rest = self.feed_lines(b"".join(pending))
                    pending = [rest] if rest else []
        finally:
            self._fail_all()

    async def close(self, grace_s: float = 5.0, *, terminate: bool = False) -> int | None:
        """Close stdin (or send SIGTERM) and wait for the exit; escalate when it lingers."""
        if self.proc.stdin is not None and not self.proc.stdin.is_closing():
            self.proc.stdin.close()
        first = self.proc.terminate if terminate else None
        for stop in (first, self.proc.terminate, self.proc.kill):
            if stop is not None and self.proc.returncode is None:
                stop()
            try:
                async with asyncio.timeout(grace_s):
                    await self.proc.wait()
                break
            except TimeoutError:
                continue
        self._reader.cancel()
        return self.proc.returncode

    def stderr_tail(self, lines: int = 5) -> str:
        """The last lines the server wrote to stderr."""
        try:
            text = self.stderr_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.strip().splitlines()[-lines:])


class WsClient(RpcPeer):
    """One WebSocket connection to an app-server (TCP ``ws://`` or a unix socket), on `rawws`."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        super().__init__()
        self._reader = reader
        self._writer = writer
        self._task = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def connect(cls, listen: str) -> WsClient:
        """Connect to ``ws://HOST:PORT`` or ``unix://PATH``."""
        reader, writer, _ = await rawws.open_websocket(listen)
        return cls(reader, writer)

    def _send(self, data: bytes) -> None:
        if self._writer.is_closing():
            raise ConnectionError("the WebSocket is closed")
        self._writer.write(rawws.client_frame(0x1, data))

    async def _read(self) -> None:
        frames = rawws.FrameReader()
        try:
            while chunk := await self._reader.read(_READ_CHUNK):
                for opcode, payload in frames.feed(chunk):
                    if opcode == 0x1:
                        self._deliver_raw(payload)
                    elif opcode == 0x9:
                        self._writer.write(rawws.client_frame(0xA, payload))
                    elif opcode == 0x8:
                        return
        except OSError:
            pass
        finally:
            self._fail_all()

    async def close(self) -> None:
        """Close the connection (a close frame, then the socket)."""
        self._task.cancel()
        if not self._writer.is_closing():
            with contextlib.suppress(OSError):
                self._writer.write(rawws.client_frame(0x8, (1000).to_bytes(2, "big")))
            self._writer.close()
        with contextlib.suppress(OSError):
            await self._writer.wait_closed()
