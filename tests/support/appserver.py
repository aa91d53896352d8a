"""Drive a real `tether app-server` subprocess over stdio, as a client would.

Every line the server prints must be a JSON-RPC message, and every message is checked against
the reference schema; violations fail the test at teardown (see `AppServer.close`).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support import schema

WAIT_S = 15.0


class RpcErrorReply(Exception):
    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.code = error.get("code")
        self.message = str(error.get("message"))
        self.data = error.get("data")


def mock_provider_args(base_url: str, *, stream_max_retries: int = 0, model: str = "gpt-test") -> list[str]:
    return [
        "-c",
        f'model="{model}"',
        "-c",
        'model_provider="mock"',
        "-c",
        'model_providers.mock.name="mock"',
        "-c",
        f'model_providers.mock.base_url="{base_url}"',
        "-c",
        'model_providers.mock.wire_api="responses"',
        "-c",
        "model_providers.mock.request_max_retries=0",
        "-c",
        f"model_providers.mock.stream_max_retries={stream_max_retries}",
    ]


@dataclass
class AppServer:
    proc: asyncio.subprocess.Process
    home: Path
    stderr_path: Path
    messages: list[dict[str, Any]] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    stdout_garbage: list[bytes] = field(default_factory=list)
    _pending: dict[Any, tuple[str, asyncio.Future[dict[str, Any]]]] = field(default_factory=dict)
    _arrived: asyncio.Event = field(default_factory=asyncio.Event)
    _cursor: int = 0
    _ids: Any = field(default_factory=lambda: itertools.count(1))
    _reader: asyncio.Task[None] | None = None

    @classmethod
    async def start(
        cls,
        home: Path,
        args: Sequence[str] = (),
        *,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> AppServer:
        home.mkdir(parents=True, exist_ok=True)
        stderr_path = home / "server.stderr.log"
        stderr_file = stderr_path.open("ab")
        full_env = {**os.environ, "TETHER_HOME": str(home), **(env or {})}
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tether_server",
            "app-server",
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr_file,
            cwd=str(cwd or home),
            env=full_env,
            limit=2**26,
        )
        stderr_file.close()  # the child has its own copy of the descriptor
        server = cls(proc, home, stderr_path)
        server._reader = asyncio.create_task(server._read())
        return server

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        while True:
            line = await self.proc.stdout.readline()
            if not line:
                break
            try:
                message = json.loads(line)
            except ValueError:
                self.stdout_garbage.append(line)
                continue
            self._accept(message)
        self._arrived.set()

    def _accept(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        if "method" in message and "id" in message:
            self.violations.extend(schema.server_request_errors(message))
        elif "method" in message:
            if "emittedAtMs" not in message:
                self.violations.append(f"{message['method']}: no emittedAtMs")
            self.violations.extend(schema.notification_errors(message))
        elif message.get("id") in self._pending:
            method, fut = self._pending.pop(message["id"])
            if "result" in message:
                self.violations.extend(
                    f"{method} result: {e}" for e in schema.response_errors(method, message["result"])
                )
            if not fut.done():
                fut.set_result(message)
        self._arrived.set()

    # ---- sending ------------------------------------------------------------------------------

    async def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        await self.proc.stdin.drain()

    async def send(self, message: dict[str, Any]) -> None:
        await self.send_raw(json.dumps(message).encode() + b"\n")

    def next_id(self) -> int:
        return int(next(self._ids))

    async def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        request_id: Any = None,
        within_s: float = WAIT_S,
    ) -> dict[str, Any]:
        """Send a request and return the whole reply message (result or error)."""
        rid = self.next_id() if request_id is None else request_id
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[rid] = (method, fut)
        message: dict[str, Any] = {"id": rid, "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)
        async with asyncio.timeout(within_s):
            return await fut

    async def request(self, method: str, params: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
        reply = await self.call(method, {} if params is None else params, **kw)
        if "error" in reply:
            raise RpcErrorReply(reply["error"])
        result: dict[str, Any] = reply["result"]
        return result

    async def initialize(
        self, name: str = "tether_tests", *, experimental: bool = False, opt_out: list[str] | None = None
    ) -> dict[str, Any]:
        caps: dict[str, Any] = {"experimentalApi": experimental}
        if opt_out is not None:
            caps["optOutNotificationMethods"] = opt_out
        result = await self.request(
            "initialize",
            {"clientInfo": {"name": name, "title": None, "version": "1.0"}, "capabilities": caps},
        )
        await self.send({"method": "initialized"})
        return result

    async def respond(self, request_id: Any, result: dict[str, Any]) -> None:
        await self.send({"id": request_id, "result": result})

    # ---- waiting ------------------------------------------------------------------------------

    def mark(self) -> int:
        """Position in the message log; `since(mark)` returns what arrived after it."""
        return len(self.messages)

    def since(self, mark: int) -> list[dict[str, Any]]:
        return self.messages[mark:]

    async def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], *, after: int = 0, within_s: float = WAIT_S
    ) -> dict[str, Any]:
        async with asyncio.timeout(within_s):
            index = after
            while True:
                while index < len(self.messages):
                    if predicate(self.messages[index]):
                        return self.messages[index]
                    index += 1
                if (
                    self.proc.stdout is not None
                    and self.proc.stdout.at_eof()
                    and self._reader
                    and self._reader.done()
                ):
                    raise AssertionError("server closed stdout while waiting")
                self._arrived.clear()
                await self._arrived.wait()

    async def notification(
        self,
        method: str,
        *,
        after: int = 0,
        within_s: float = WAIT_S,
        where: Callable[[dict[str, Any]], bool] = lambda p: True,
    ) -> dict[str, Any]:
        msg = await self.wait_for(
            lambda m: m.get("method") == method and "id" not in m and where(m.get("params") or {}),
            after=after,
            within_s=within_s,
        )
        return msg

    async def server_request(
        self, method: str, *, after: int = 0, within_s: float = WAIT_S
    ) -> dict[str, Any]:
        return await self.wait_for(
            lambda m: m.get("method") == method and "id" in m, after=after, within_s=within_s
        )

    # ---- teardown -----------------------------------------------------------------------------

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    async def close(self, *, check: bool = True) -> int:
        """Close stdin (EOF ends the connection) and wait for the process to exit."""
        if self.proc.returncode is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                async with asyncio.timeout(WAIT_S):
                    await self.proc.wait()
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
        if self._reader is not None:
            await self._reader
        if check:
            assert not self.stdout_garbage, f"non-protocol bytes on stdout: {self.stdout_garbage[:3]}"
            assert not self.violations, "messages the reference schema rejects:\n" + "\n".join(
                self.violations[:20]
            )
        return int(self.proc.returncode or 0)

    def kill(self) -> None:
        if self.proc.returncode is None:
            self.proc.kill()


def methods(messages: list[dict[str, Any]]) -> list[str]:
    """The notification/request method sequence (responses shown as `<result>` / `<error>`)."""
    out = []
    for m in messages:
        if "method" in m:
            out.append(m["method"])
        else:
            out.append("<error>" if "error" in m else "<result>")
    return out
