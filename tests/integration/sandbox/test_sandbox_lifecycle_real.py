"""Killing the outer bwrap takes the whole sandboxed process tree down, setsid escapees included."""

from __future__ import annotations

import asyncio
import os
import uuid
from pathlib import Path

from tether_server.sandbox import SandboxCapability, SandboxPolicy, prepare


def _pids_with_arg(marker: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if marker.encode() in args:
            pids.append(int(entry.name))
    return pids


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
            pids = _pids_with_arg(marker)
            while len(pids) < 2:  # both sleeps are forked before "ready" but may not have exec'd yet
                await asyncio.sleep(0.01)
                pids = _pids_with_arg(marker)
        pidfds = [os.pidfd_open(pid) for pid in pids]
        proc.kill()
        async with asyncio.timeout(10):
            await proc.wait()
            await asyncio.gather(*(_exited(fd) for fd in pidfds))
        for fd in pidfds:
            os.close(fd)
        assert _pids_with_arg(marker) == []
    finally:
        prepared.cleanup()
