"""Drive a real `tether app-server` subprocess over stdio, as a client would.

Every line the server prints must be a JSON-RPC message, and every message is checked against
the reference schema; violations fail the test at teardown (see `AppServer.close`).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from tests.support.rpcclient import WAIT_S, RpcClient, RpcErrorReply, methods

__all__ = ["WAIT_S", "AppServer", "RpcErrorReply", "methods", "mock_provider_args"]


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
        # Login shells read the machine's profile; tests must not depend on it.
        "-c",
        "allow_login_shell=false",
    ]


class AppServer(RpcClient):
    def __init__(self, proc: asyncio.subprocess.Process, home: Path, stderr_path: Path) -> None:
        super().__init__()
        self.proc = proc
        self.home = home
        self.stderr_path = stderr_path
        self.stdout_garbage: list[bytes] = []
        self._reader: asyncio.Task[None] | None = None

    @classmethod
    async def start(
        cls,
        home: Path,
        args: Sequence[str] = (),
        *,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        prefix: Sequence[str] = (),
        stderr_path: Path | None = None,
    ) -> AppServer:
        """Spawn `tether app-server` on `home`; `prefix` runs it under another command (`unshare …`),
        `stderr_path` keeps its log elsewhere than the home (a home that turns read-only or full)."""
        if not home.is_dir():  # an existing home may sit on a read-only file system
            home.mkdir(parents=True)
        stderr_path = stderr_path or home / "server.stderr.log"
        stderr_file = stderr_path.open("ab")
        full_env = {**os.environ, "TETHER_HOME": str(home), **(env or {})}
        proc = await asyncio.create_subprocess_exec(
            *prefix,
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

    # ---- sending ------------------------------------------------------------------------------

    async def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        await self.proc.stdin.drain()

    def ended(self) -> bool:
        return bool(
            self.proc.stdout is not None
            and self.proc.stdout.at_eof()
            and self._reader is not None
            and self._reader.done()
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
            self.check()
        return int(self.proc.returncode or 0)

    def kill(self) -> None:
        if self.proc.returncode is None:
            self.proc.kill()
