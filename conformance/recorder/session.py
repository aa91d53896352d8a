"""One `codex app-server` over stdio, driven step by step, with every message logged as it passes.

Messages are logged by the reader in the order they arrive, whichever step is running; a step only
decides what the client sends and what it waits for. So a transcript shows the server's own ordering,
and where a notification races a response it may land on either side of a step line.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

Record = dict[str, Any]
Message = dict[str, Any]

STREAM_LIMIT = 2**26
WAIT_S = 30.0
EXIT_S = 15.0
QUIET_S = 1.0
QUIESCE_MAX_S = 15.0


class StepFailed(Exception):
    """A step did not get what it waited for."""


class Session:
    """The scripted client of one server process.

    Args:
        argv: the server command.
        env: its environment.
        cwd: its working directory.
        stderr: where its stderr goes.
    """

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path, stderr: TextIO) -> None:
        self._argv, self._env, self._cwd, self._stderr = argv, env, cwd, stderr
        self._proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._arrived = asyncio.Event()
        self._ids = itertools.count(1)
        self._auto: dict[str, dict[str, Any]] = {}
        self.records: list[Record] = []
        self.received: list[Message] = []
        self.cursor = 0
        self.answered: set[Any] = set()
        self.values: dict[str, Any] = {}

    async def start(self) -> None:
        """Start the server and its reader."""
        self._proc = await asyncio.create_subprocess_exec(
            *self._argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=self._env,
            cwd=self._cwd,
            limit=STREAM_LIMIT,
        )
        self.records.append({"dir": "meta", "event": "server_started", "pid_index": 1, "transport": "stdio"})
        self._reader = asyncio.create_task(self._read())

    # ---- what the client sends -----------------------------------------------------------------

    async def request(self, method: str, params: Any, request_id: Any = None) -> Message:
        """Send a request (no `params` member when `params` is None) and wait for its answer."""
        rid = next(self._ids) if request_id is None else request_id
        msg: Message = {"id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        start = len(self.received)
        await self.send(msg)
        index = await self.wait_for(lambda m: _is_answer(m, rid), start)
        answer = self.received[index]
        self._remember(method, answer.get("result"))
        return answer

    async def notify(self, method: str, params: Any) -> None:
        """Send a notification (no `params` member when `params` is None)."""
        msg: Message = {"method": method}
        if params is not None:
            msg["params"] = params
        await self.send(msg)

    async def respond(self, result: dict[str, Any]) -> None:
        """Answer the latest server request not answered yet."""
        pending = [m for m in self.received if "method" in m and "id" in m and m["id"] not in self.answered]
        if not pending:
            raise StepFailed("no server request to answer")
        await self._answer(pending[-1]["id"], result)

    def auto_respond(self, method: str, result: dict[str, Any]) -> None:
        """From now on, answer every server request `method` with `result` as it arrives."""
        self._auto[method] = result

    async def send(self, msg: Message) -> None:
        """Log and write one message."""
        self.records.append({"conn": "main", "dir": "send", "msg": msg})
        await self._write(json.dumps(msg))

    async def send_raw(self, text: str) -> None:
        """Log and write one line as it is (malformed input on purpose)."""
        self.records.append({"conn": "main", "dir": "send", "raw": text})
        await self._write(text)

    # ---- what the client waits for -------------------------------------------------------------

    async def wait_method(self, method: str) -> Message:
        """The next message `method` after the one the previous wait matched."""
        index = await self.wait_for(lambda m: m.get("method") == method, self.cursor)
        self.cursor = index + 1
        return self.received[index]

    async def wait_for(self, match: Callable[[Message], bool], start: int, within_s: float = WAIT_S) -> int:
        """The index of the first received message from `start` on that `match`es.

        Raises:
            StepFailed: none arrived within `within_s`, or the server closed its output.
        """
        deadline = time.monotonic() + within_s
        checked = start
        while True:
            for index in range(checked, len(self.received)):
                if match(self.received[index]):
                    return index
            checked = len(self.received)
            if self._reader is not None and self._reader.done():
                raise StepFailed("the server closed its output")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise StepFailed(f"nothing matching arrived within {within_s:.0f} s")
            event = self._arrived
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), remaining)

    async def quiesce(self) -> None:
        """Wait until the server has been silent for `QUIET_S` (at most `QUIESCE_MAX_S`)."""
        deadline = time.monotonic() + QUIESCE_MAX_S
        while time.monotonic() < deadline:
            seen = len(self.received)
            event = self._arrived
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), QUIET_S)
            if len(self.received) == seen:
                return

    # ---- the end -------------------------------------------------------------------------------

    async def close(self) -> None:
        """Close stdin (the end of a stdio connection), read to EOF, wait for the exit."""
        proc = self._proc
        if proc is None:
            return
        if proc.stdin is not None and not proc.stdin.is_closing():
            proc.stdin.close()
        if self._reader is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._reader), EXIT_S)
        try:
            code = await asyncio.wait_for(proc.wait(), EXIT_S)
        except TimeoutError:
            # Ours to end: the server did not leave after its stdin closed.
            proc.kill()
            code = await proc.wait()
        if self._reader is not None and not self._reader.done():
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        self.records.append({"dir": "meta", "event": "server_exited", "returncode": code})

    # ---- internals -----------------------------------------------------------------------------

    async def _write(self, line: str) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        self._proc.stdin.write(line.encode() + b"\n")
        await self._proc.stdin.drain()

    async def _answer(self, request_id: Any, result: dict[str, Any]) -> None:
        self.answered.add(request_id)
        await self.send({"id": request_id, "result": result})

    async def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        stdout = self._proc.stdout
        while line := await stdout.readline():
            text = line.decode(errors="replace").rstrip("\n")
            if not text.strip():
                continue
            try:
                msg = json.loads(text)
            except json.JSONDecodeError:
                self.records.append({"conn": "main", "dir": "recv", "raw": text})
                continue
            self.records.append({"conn": "main", "dir": "recv", "msg": msg})
            if isinstance(msg, dict):
                self.received.append(msg)
                auto = self._auto.get(str(msg.get("method")))
                if auto is not None and "id" in msg:
                    await self._answer(msg["id"], auto)
            self._arrived.set()
            self._arrived = asyncio.Event()
        self.records.append(
            {"conn": "main", "dir": "meta", "event": "connection_closed", "why": "server stdout EOF"}
        )
        self._arrived.set()

    def _remember(self, method: str, result: Any) -> None:
        # Later steps name the thread and turn these requests created.
        if not isinstance(result, dict):
            return
        if method == "thread/start" and isinstance(result.get("thread"), dict):
            self.values["thread"] = result["thread"].get("id")
        if method == "turn/start" and isinstance(result.get("turn"), dict):
            self.values["turn"] = result["turn"].get("id")


def _is_answer(msg: Message, request_id: Any) -> bool:
    return "method" not in msg and msg.get("id") == request_id and ("result" in msg or "error" in msg)
