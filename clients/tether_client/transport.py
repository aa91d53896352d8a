"""How the client moves frames: the Transport protocol and the stdio (child process) transport.

A transport moves whole JSON texts, one message per frame; the client never sees framing. Adding
a transport means implementing `send`, `frames` and `close`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
from collections import deque
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from tether_client.errors import TransportClosed

_LINE_LIMIT = 2**26
_STDERR_TAIL = 200


class Transport(Protocol):
    """A connection to one app-server."""

    async def send(self, frame: bytes) -> None:
        """Write one JSON message; raises TransportClosed once the peer is gone."""
        ...

    def frames(self) -> AsyncIterator[bytes]:
        """Incoming JSON messages until the peer goes away."""
        ...

    async def close(self) -> None:
        """Close the connection (and stop the server if the transport owns it); idempotent."""
        ...


def default_app_server_command() -> list[str]:
    """`tether app-server` from PATH, else this interpreter's `-m tether_server app-server`."""
    found = shutil.which("tether")
    if found:
        return [found, "app-server"]
    return [sys.executable, "-m", "tether_server", "app-server"]


class StdioTransport:
    """An app-server child process spoken to over its stdin/stdout (JSONL).

    The child runs in its own session so a terminal's Ctrl-C reaches only the client, which can
    then interrupt the turn cleanly. Its stderr is kept (last lines) in `stderr_tail`.
    """

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.stderr_tail: deque[str] = deque(maxlen=_STDERR_TAIL)
        self._stderr_task = asyncio.create_task(self._drain_stderr())
        self._closed = False

    @classmethod
    async def spawn(
        cls,
        command: Sequence[str] | None = None,
        *,
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> StdioTransport:
        """Start `command` (default: `tether app-server`) and connect to it.

        Args:
            command: argv of the app-server; config overrides go in it (`-c k=v`).
            cwd: working directory of the child.
            env: extra environment variables for the child (added to this process's).
        """
        argv = list(command) if command else default_app_server_command()
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=None if cwd is None else str(cwd),
            env={**os.environ, **(env or {})},
            limit=_LINE_LIMIT,
            start_new_session=True,
        )
        return cls(proc)

    async def send(self, frame: bytes) -> None:
        stdin = self.proc.stdin
        if self._closed or stdin is None or stdin.is_closing():
            raise TransportClosed("app-server stdin is closed")
        try:
            stdin.write(frame + b"\n")
            await stdin.drain()
        except (ConnectionError, BrokenPipeError) as exc:
            raise TransportClosed("app-server went away") from exc

    async def frames(self) -> AsyncIterator[bytes]:
        stdout = self.proc.stdout
        assert stdout is not None
        while True:
            try:
                line = await stdout.readline()
            except (ValueError, ConnectionError):
                return
            if not line:
                return
            line = line.strip()
            if line:
                yield line

    async def close(self, timeout_s: float = 5.0) -> None:
        """Close stdin (the server drains and exits), then terminate it if it lingers."""
        if self._closed:
            return
        self._closed = True
        if self.proc.stdin is not None and not self.proc.stdin.is_closing():
            self.proc.stdin.close()
        try:
            async with asyncio.timeout(timeout_s):
                await self.proc.wait()
        except TimeoutError:
            self._signal(signal.SIGTERM)
            try:
                async with asyncio.timeout(timeout_s):
                    await self.proc.wait()
            except TimeoutError:
                self._signal(signal.SIGKILL)
                await self.proc.wait()
        with contextlib.suppress(asyncio.CancelledError):
            await self._stderr_task

    def _signal(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(sig)

    async def _drain_stderr(self) -> None:
        stderr = self.proc.stderr
        assert stderr is not None
        while line := await stderr.readline():
            self.stderr_tail.append(line.decode(errors="replace").rstrip("\n"))
