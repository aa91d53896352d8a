"""Where the kernel refuses a pidfd (before 5.3, or a container's seccomp profile denying
`pidfd_open`), both kinds of command still run and report their exit: it is polled instead.

The refusal is the kernel's answer, so it is the one thing stood in for here: `os.pidfd_open`
raises as it does there. Everything else (the processes, their pipes and PTYs) is real.
"""

from __future__ import annotations

import asyncio
import errno
import os
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tether_server.tools.exec import ExecRequest, ProcessSessions
from tether_server.tools.exec.standalone import TIMEOUT_EXIT_CODE, StandaloneProcess, StandaloneSpec

LIMIT_S = 15.0


@pytest.fixture(autouse=True)
def no_pidfd(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(pid: int, flags: int = 0) -> int:
        raise OSError(errno.ENOSYS, "Function not implemented")

    monkeypatch.setattr(os, "pidfd_open", refused)


@pytest.fixture
async def sessions() -> AsyncIterator[ProcessSessions]:
    registry = ProcessSessions()
    yield registry
    await registry.close()


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def _spec(tmp_path: Path, script: str, **kw: Any) -> StandaloneSpec:
    return replace(StandaloneSpec(["/bin/sh", "-c", script], tmp_path, dict(os.environ)), **kw)


async def test_command_exec_reports_exit_code_and_output(tmp_path: Path) -> None:
    process = StandaloneProcess.spawn(_spec(tmp_path, "echo out; echo err >&2; exit 7"))
    async with asyncio.timeout(LIMIT_S):
        result = await process.wait()
    assert (result.exit_code, result.stdout, result.stderr) == (7, b"out\n", b"err\n")


async def test_command_exec_on_a_pty_reports_its_exit(tmp_path: Path) -> None:
    process = StandaloneProcess.spawn(_spec(tmp_path, "echo on-a-tty; exit 3", tty=True))
    async with asyncio.timeout(LIMIT_S):
        result = await process.wait()
    assert result.exit_code == 3 and result.stdout == b"on-a-tty\r\n"


async def test_command_exec_timeout_still_kills_and_exits_124(tmp_path: Path) -> None:
    process = StandaloneProcess.spawn(_spec(tmp_path, "exec sleep 600", timeout_s=0.3))
    async with asyncio.timeout(LIMIT_S):
        result = await process.wait()
    assert result.exit_code == TIMEOUT_EXIT_CODE and result.timed_out
    assert not _alive(process.pid)


async def test_a_model_command_reports_its_exit_code(sessions: ProcessSessions) -> None:
    request = ExecRequest(
        argv=["/bin/sh", "-c", "echo hi; exit 4"], cwd=Path.cwd(), env=dict(os.environ), tty=False
    )
    async with asyncio.timeout(LIMIT_S):
        result = await sessions.exec_command(request, None)
    assert (result.exit_code, result.output) == (4, "hi\n")


async def test_a_model_session_that_outlives_its_call_is_still_killed(sessions: ProcessSessions) -> None:
    request = ExecRequest(
        argv=["sleep", "600"], cwd=Path.cwd(), env=dict(os.environ), tty=True, yield_time_ms=250
    )
    async with asyncio.timeout(LIMIT_S):
        result = await sessions.exec_command(request, None)
        assert result.session_id is not None and _alive(result.pid)
        await sessions.terminate(result.session_id)
    assert not _alive(result.pid)
