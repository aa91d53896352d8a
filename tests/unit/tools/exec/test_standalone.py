"""Standalone (`command/exec`) processes: separate streams, caps, timeouts, stdin and PTY handling."""

from __future__ import annotations

import asyncio
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tether_server.errors import InvalidRequest
from tether_server.tools.exec.standalone import SpawnError, StandaloneProcess, StandaloneSpec, Stream

LIMIT_S = 15.0


def _spec(tmp_path: Path, script: str, **kw: Any) -> StandaloneSpec:
    return replace(StandaloneSpec(argv=["/bin/sh", "-c", script], cwd=tmp_path, env=dict(os.environ)), **kw)


async def _exited(pid: int) -> None:
    """Wait until process `pid` (not necessarily our child) has exited."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    loop = asyncio.get_running_loop()
    done = asyncio.Event()
    loop.add_reader(fd, done.set)
    try:
        async with asyncio.timeout(LIMIT_S):
            await done.wait()
    finally:
        loop.remove_reader(fd)
        os.close(fd)


async def _run(spec: StandaloneSpec) -> tuple[int, bytes, bytes, bool]:
    process = StandaloneProcess.spawn(spec)
    async with asyncio.timeout(LIMIT_S):
        result = await process.wait()
    return result.exit_code, result.stdout, result.stderr, result.timed_out


async def test_stdout_and_stderr_are_kept_apart_with_the_exit_code(tmp_path: Path) -> None:
    assert await _run(_spec(tmp_path, "echo out; echo err >&2; exit 5")) == (5, b"out\n", b"err\n", False)


async def test_each_stream_is_cut_at_the_cap(tmp_path: Path) -> None:
    script = "printf 0123456789; printf abcdefghij >&2"
    assert await _run(_spec(tmp_path, script, output_cap=4)) == (0, b"0123", b"abcd", False)


async def test_streamed_chunks_end_with_a_cap_reached_mark(tmp_path: Path) -> None:
    chunks: list[tuple[Stream, bytes, bool]] = []
    spec = _spec(tmp_path, "head -c 100000 /dev/zero", output_cap=10)
    process = StandaloneProcess.spawn(spec, lambda s, c, r: chunks.append((s, c, r)))
    async with asyncio.timeout(LIMIT_S):
        result = await process.wait()
    assert (result.stdout, result.exit_code) == (b"", 0)
    assert b"".join(c for _, c, _ in chunks) == b"\0" * 10
    assert chunks[-1][2] is True


async def test_a_timeout_kills_the_whole_group_and_exits_124(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    spec = _spec(tmp_path, f"sleep 30 & echo $! > {pid_file}; echo started; wait", timeout_s=0.3)
    assert await _run(spec) == (124, b"started\n", b"", True)
    await _exited(int(pid_file.read_text()))


async def test_stdin_is_only_writable_when_asked_for(tmp_path: Path) -> None:
    closed = StandaloneProcess.spawn(_spec(tmp_path, "cat"))
    with pytest.raises(InvalidRequest):
        await closed.write(b"x")
    with pytest.raises(InvalidRequest):
        closed.resize(10, 10)
    async with asyncio.timeout(LIMIT_S):
        assert (await closed.wait()).stdout == b""
    opened = StandaloneProcess.spawn(_spec(tmp_path, "cat", stdin_open=True))
    await opened.write(b"hello")
    await opened.close_stdin()
    async with asyncio.timeout(LIMIT_S):
        assert (await opened.wait()).stdout == b"hello"


async def test_a_missing_program_cannot_be_spawned(tmp_path: Path) -> None:
    spec = StandaloneSpec(argv=["/no/such/program"], cwd=tmp_path, env={})
    with pytest.raises(SpawnError, match="failed to spawn command"):
        StandaloneProcess.spawn(spec)
