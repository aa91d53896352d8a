"""Start the server under test from a command template, and open client channels to it.

Template placeholders: `{home}` (a fresh scratch home per case), `{model_base_url}` (the fake
model's URL), `{listen}` (the listen URL for the chosen transport), `{workdir}` (the case's project).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from conformance.client import Channel

STREAM_LIMIT = 2**26


@dataclass(frozen=True)
class ServerTemplate:
    """How to start the server under test.

    Attributes:
        command: the command line template (shell words).
        env: extra environment variables, values are templates too.
        transport: "stdio", "unix" or "ws".
    """

    command: str
    env: dict[str, str] = field(default_factory=dict)
    transport: str = "stdio"

    def render(self, values: dict[str, str]) -> tuple[list[str], dict[str, str]]:
        """The argv and the environment additions for one server start."""
        argv = [word.format_map(values) for word in shlex.split(self.command)]
        return argv, {k: v.format_map(values) for k, v in self.env.items()}


class StdioChannel:
    """The server process's stdin/stdout as a JSONL channel."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self._proc = proc

    async def send(self, frame: bytes) -> None:
        """Write one line."""
        assert self._proc.stdin is not None
        self._proc.stdin.write(frame + b"\n")
        await self._proc.stdin.drain()

    async def frames(self) -> AsyncIterator[bytes]:
        """Lines from stdout until EOF."""
        assert self._proc.stdout is not None
        while line := await self._proc.stdout.readline():
            if line.strip():
                yield line.rstrip(b"\n")

    async def close(self) -> None:
        """Close stdin: EOF ends the stdio connection."""
        assert self._proc.stdin is not None
        if not self._proc.stdin.is_closing():
            self._proc.stdin.close()


@dataclass
class ServerProcess:
    """One running server process."""

    proc: asyncio.subprocess.Process
    stderr_path: Path
    listen: str

    @classmethod
    async def start(
        cls, template: ServerTemplate, values: dict[str, str], *, cwd: Path, log_dir: Path
    ) -> ServerProcess:
        """Spawn the server from `template` with the placeholders filled from `values`."""
        argv, env = template.render(values)
        stderr_path = _next_log(log_dir)
        with stderr_path.open("wb") as stderr:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=stderr,
                cwd=str(cwd),
                env={**os.environ, **env},
                limit=STREAM_LIMIT,
                start_new_session=True,
            )
        return cls(proc, stderr_path, values.get("listen", ""))

    def stdio(self) -> Channel:
        """The stdio channel (the only connection of a stdio server)."""
        return StdioChannel(self.proc)

    def stderr_tail(self, lines: int = 15) -> str:
        """The end of what the server logged, for failure reports."""
        try:
            text = self.stderr_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    async def stop(self, grace_s: float = 5.0) -> int | None:
        """End the process: close stdin (EOF ends a stdio server), then SIGTERM, then SIGKILL.

        Signals go to the server's own process group (it was started in a new session).
        """
        if self.proc.returncode is None and self.proc.stdin is not None:
            self.proc.stdin.close()
        first = (None,) if self.listen.startswith("stdio") else ()
        for sig in (*first, signal.SIGTERM, signal.SIGKILL):
            if sig is not None and self.proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, sig)
            try:
                async with asyncio.timeout(grace_s):
                    await self.proc.wait()
                break
            except TimeoutError:
                continue
        return self.proc.returncode


def _next_log(log_dir: Path) -> Path:
    """A fresh `server-N.log` in `log_dir` (a case may start several servers)."""
    log_dir.mkdir(parents=True, exist_ok=True)
    return log_dir / f"server-{len(list(log_dir.glob('server-*.log')))}.log"
