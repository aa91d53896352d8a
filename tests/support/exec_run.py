"""Running `tether exec` as a real subprocess against the fake model, as scripts and CI do."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.appserver import WAIT_S, mock_provider_args

EXEC_WAIT_S = WAIT_S * 6


@dataclass
class Finished:
    """A finished `tether exec`: its exit status and output."""

    code: int
    stdout: str
    stderr: str

    @property
    def events(self) -> list[dict[str, Any]]:
        """stdout as JSONL (with --json)."""
        return [json.loads(line) for line in self.stdout.splitlines()]


def git_repo(path: Path) -> Path:
    """`path`, made a git repository (exec refuses to run elsewhere by default)."""
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def exec_argv(base_url: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "tether_server", "exec", *mock_provider_args(base_url), *args]


async def start_exec(
    base_url: str, home: Path, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> asyncio.subprocess.Process:
    """Start `tether exec` with the fake provider; stdin, stdout and stderr are pipes."""
    return await asyncio.create_subprocess_exec(
        *exec_argv(base_url, *args),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "TETHER_HOME": str(home), **(env or {})},
        cwd=cwd,
    )


async def run_exec(
    base_url: str,
    home: Path,
    *args: str,
    stdin: str = "",
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> Finished:
    """Run `tether exec` to its end with `stdin` piped in (then closed)."""
    proc = await start_exec(base_url, home, *args, env=env, cwd=cwd)
    async with asyncio.timeout(EXEC_WAIT_S):
        out, err = await proc.communicate(stdin.encode())
    assert proc.returncode is not None
    return Finished(proc.returncode, out.decode(), err.decode())
