"""Run a `tether` subcommand as a real process, the way a user types it."""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.support.rpcclient import WAIT_S


@dataclass(frozen=True)
class Ran:
    status: int
    stdout: str
    stderr: str


async def run_tether(
    home: Path, *args: str, stdin: bytes = b"", env: dict[str, str] | None = None, within_s: float = WAIT_S
) -> Ran:
    """`tether ARGS` with `TETHER_HOME=home`, `stdin` piped in; its exit status and output."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tether_server",
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "TETHER_HOME": str(home), **(env or {})},
        cwd=str(home.parent),
    )
    try:
        async with asyncio.timeout(within_s):
            out, err = await proc.communicate(stdin)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    return Ran(int(proc.returncode or 0), out.decode(errors="replace"), err.decode(errors="replace"))
