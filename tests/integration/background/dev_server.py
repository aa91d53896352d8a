"""A tiny HTTP dev server the scripted model starts, and what the test sees of it from outside:
whether its port answers and which process listens there (found in /proc, not asked of Tether)."""

from __future__ import annotations

import asyncio
import os
import socket
from pathlib import Path

from tests.chaos.stubborn import wait_readable
from tests.support.rpcclient import WAIT_S
from tether_testing import script

_POLL_S = 0.02  # a port opening or closing has no event to wait on


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def command(port: int) -> str:
    return f"python3 -u -m http.server {port} --bind 127.0.0.1"


def start_call(port: int, call_id: str = "call_dev") -> script.OutputItem:
    """The model's `exec_command` starting the server; its yield ends while the server runs."""
    return script.function_call("exec_command", {"cmd": command(port), "yield_time_ms": 500}, call_id)


async def get(port: int) -> bytes | None:
    """The status line of `GET /`, or None when nothing answers."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return None
    try:
        writer.write(b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n")
        await writer.drain()
        return await reader.readline()
    except OSError:
        return None
    finally:
        writer.close()


async def wait_answering(port: int) -> bytes:
    async with asyncio.timeout(WAIT_S):
        while (line := await get(port)) is None:  # noqa: ASYNC110
            await asyncio.sleep(_POLL_S)
    return line


async def wait_refused(port: int) -> None:
    async with asyncio.timeout(WAIT_S):
        while await get(port) is not None:  # noqa: ASYNC110
            await asyncio.sleep(_POLL_S)


def _listening_inode(port: int) -> str | None:
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[1].endswith(f":{port:04X}") and fields[3] == "0A":
                return fields[9]
    return None


def listener_pid(port: int) -> int | None:
    """The process holding the listening socket of `port`, if any."""
    inode = _listening_inode(port)
    if inode is None:
        return None
    target = f"socket:[{inode}]"
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fds = os.listdir(f"/proc/{entry}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{entry}/fd/{fd}") == target:
                    return int(entry)
            except OSError:
                continue
    return None


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting for its parent does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


async def wait_gone(pid: int) -> None:
    """Until `pid` has ended (its pidfd turns readable), within WAIT_S."""
    try:
        watch = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        await wait_readable(watch)
    finally:
        os.close(watch)
