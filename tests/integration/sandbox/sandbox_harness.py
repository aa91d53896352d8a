"""Helpers for the real-bwrap tests: run a prepared command, optionally as `nobody`."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tether_server.sandbox import SandboxCapability, SandboxPolicy, prepare

AS_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
RUN_LIMIT_S = 20.0


@dataclass(frozen=True)
class Outcome:
    returncode: int
    stdout: str
    stderr: str


async def run_prepared(
    policy: SandboxPolicy,
    cwd: Path,
    argv: Sequence[str],
    capability: SandboxCapability,
    *,
    hidden_paths: Sequence[Path] = (),
    as_nobody: bool = False,
    env: Mapping[str, str] | None = None,
) -> Outcome:
    """Prepare `argv` for `policy`, run it to completion, clean up, and return what it printed."""
    prepared = prepare(policy, cwd, argv, capability, hidden_paths=hidden_paths, env=env or {})
    full = [*AS_NOBODY, *prepared.argv] if as_nobody else prepared.argv
    try:
        proc = await asyncio.create_subprocess_exec(
            *full,
            cwd=cwd,
            pass_fds=prepared.pass_fds,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        async with asyncio.timeout(RUN_LIMIT_S):
            out, err = await proc.communicate()
    finally:
        prepared.cleanup()
    return Outcome(proc.returncode or 0, out.decode(errors="replace"), err.decode(errors="replace"))


def python_argv(code: str) -> list[str]:
    """Run stdlib-only Python code inside the sandbox (root tests: nobody cannot read root's pyenv)."""
    return [sys.executable, "-I", "-S", "-c", code]
