"""Killing the outer bwrap takes the whole sandboxed process tree down, setsid escapees included."""

from __future__ import annotations

import asyncio
import os
import uuid
from pathlib import Path

from tether_server.sandbox import SandboxCapability, SandboxPolicy, prepare


def _descendants(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            found += [int(child), *_descendants(int(child))]
    return found


def _alive_with_arg(pids: list[int], marker: str) -> list[int]:
    alive = []
    for pid in pids:
        try:
            args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if marker.encode() in args:
            alive.append(pid)
    return alive


async def _exited(pidfd: int) -> None:
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    loop.add_reader(pidfd, done.set_result, None)
    try:
        await done
    finally:
        loop.remove_reader(pidfd)


async def test_killing_the_sandbox_kills_background_and_setsid_children(
    capability: SandboxCapability, tmp_path: Path
) -> None:
    marker = f"3000.{uuid.uuid4().int % 10**9}"
    script = f"sleep {marker} & setsid sleep {marker} & echo ready; wait"
    prepared = prepare(SandboxPolicy(kind="read-only"), tmp_path, ["sh", "-c", script], capability)
    proc = await asyncio.create_subprocess_exec(
        *prepared.argv, pass_fds=prepared.pass_fds, stdout=asyncio.subprocess.PIPE
    )
    try:
        assert proc.stdout is not None
        async with asyncio.timeout(10):
            assert await proc.stdout.readline() == b"ready\n"
        # Every fork happened before "ready", so the tree is complete now.
        tree = _descendants(proc.pid)
        assert len(tree) >= 3
        pidfds = [os.pidfd_open(pid) for pid in tree]
        proc.kill()
        async with asyncio.timeout(10):
            await proc.wait()
            await asyncio.gather(*(_exited(fd) for fd in pidfds))
        for fd in pidfds:
            os.close(fd)
        assert _alive_with_arg(tree, marker) == []
    finally:
        prepared.cleanup()
