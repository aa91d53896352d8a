"""A stdio daemon never outlives the client that spawned it (a closed terminal, a killed SDK app).

These drive the daemon with plain pipes, as the client that dies would have: all three pipes
closed, only stderr closed then SIGTERM, and a parent that exits while stdin is still held open.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.support.appserver import WAIT_S

_INIT = b'{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"1"}}}\n'


def _spawn(home: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "TETHER_HOME": str(home)}
    pipe = subprocess.PIPE
    argv = [sys.executable, "-m", "tether_server", "app-server"]
    return subprocess.Popen(argv, env=env, cwd=home, stdin=pipe, stdout=pipe, stderr=pipe)


async def _gone(pid: int) -> None:
    """Wait, bounded, until process `pid` has exited (its pidfd turns readable)."""
    pidfd = os.pidfd_open(pid)
    exited = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_reader(pidfd, exited.set)
    try:
        async with asyncio.timeout(WAIT_S):
            await exited.wait()
    finally:
        loop.remove_reader(pidfd)
        os.close(pidfd)


async def _exits(proc: subprocess.Popen[bytes]) -> int:
    await _gone(proc.pid)
    return proc.wait()


def _initialize(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(_INIT)
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 1


async def test_closing_all_three_pipes_ends_the_daemon(tmp_path: Path) -> None:
    proc = _spawn(tmp_path)
    try:
        _initialize(proc)
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        proc.stderr.close()
        proc.stdout.close()
        proc.stdin.close()
        assert await _exits(proc) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


async def test_sigterm_still_stops_a_daemon_whose_stderr_is_closed(tmp_path: Path) -> None:
    proc = _spawn(tmp_path)
    try:
        _initialize(proc)
        assert proc.stderr is not None
        proc.stderr.close()  # every log line from now on meets a broken pipe
        proc.send_signal(signal.SIGTERM)
        assert await _exits(proc) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                pipe.close()


async def test_a_stdio_daemon_exits_with_its_parent_even_when_stdin_stays_open(tmp_path: Path) -> None:
    # The parent hands the daemon a stdin whose write end we keep, talks to it, then exits.
    read_end, write_end = os.pipe()
    os.write(write_end, _INIT)
    launcher = (
        "import os, subprocess, sys\n"
        "p = subprocess.Popen([sys.executable, '-m', 'tether_server', 'app-server'],"
        " stdin=int(sys.argv[1]), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)\n"
        "p.stdout.readline()\n"
        "print(p.pid, flush=True)\n"
        "os._exit(0)\n"
    )
    env = {**os.environ, "TETHER_HOME": str(tmp_path)}
    parent = await asyncio.create_subprocess_exec(
        sys.executable, "-c", launcher, str(read_end), env=env, pass_fds=(read_end,), stdout=subprocess.PIPE
    )
    os.close(read_end)
    async with asyncio.timeout(WAIT_S):
        out, _ = await parent.communicate()
    pid = int(out)
    try:
        await _gone(pid)
    except BaseException:
        os.kill(pid, signal.SIGKILL)
        raise
    finally:
        os.close(write_end)
