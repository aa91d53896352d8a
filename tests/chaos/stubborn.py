"""Processes that ignore SIGTERM, and finding them again by a marker in their command line."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import sys
from pathlib import Path

from tests.support.rpcclient import WAIT_S

STUBBORN_MCP = Path(__file__).with_name("stubborn_mcp_server.py")
_SIGTERM_BIT = 1 << (signal.SIGTERM - 1)


def new_marker() -> str:
    """A token no other process on the machine has in its command line (a valid `sleep` length)."""
    return f"{900_000 + secrets.randbelow(99_999)}.{secrets.randbelow(10**6):06d}"


def stubborn_command(marker: str) -> str:
    """A shell command that ignores SIGTERM and leaves a child that ignores it too; prints READY."""
    return f"trap '' TERM; sleep {marker} & echo READY; exec sleep {marker}"


def pids_with(marker: str) -> set[int]:
    """Live (not zombie) processes whose command line holds `marker`, this test process excluded."""
    found: set[int] = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker.encode() in cmdline and state not in (b"Z", b"X"):
            found.add(int(entry))
    return found


def _ignores_sigterm(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    for line in status.splitlines():
        if line.startswith("SigIgn:"):
            return bool(int(line.split()[1], 16) & _SIGTERM_BIT)
    return False


async def wait_for_stubborn(marker: str, at_least: int) -> set[int]:
    """The marked processes once `at_least` of them run and the leaves of their tree ignore SIGTERM."""

    def ready(pids: set[int]) -> bool:
        parents = {parent_of(pid) for pid in pids}
        leaves = pids - parents
        return len(pids) >= at_least and bool(leaves) and all(_ignores_sigterm(pid) for pid in leaves)

    async with asyncio.timeout(WAIT_S):
        while not ready(pids := pids_with(marker)):  # noqa: ASYNC110
            await asyncio.sleep(0.02)  # process creation has no event to wait on
    return pids


def parent_of(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


async def wait_readable(fd: int) -> None:
    """Until `fd` (a pidfd: readable once its process has ended) is readable, within WAIT_S."""
    loop = asyncio.get_running_loop()
    ready = loop.create_future()
    loop.add_reader(fd, ready.set_result, None)
    try:
        async with asyncio.timeout(WAIT_S):
            await ready
    finally:
        loop.remove_reader(fd)


def write_mcp_config(home: Path, name: str, marker: str, **keys: object) -> None:
    """Configure the stubborn MCP server as stdio server `name` in `home`'s config.toml (not with
    `-c`, which would put the marker in the daemon's own command line)."""
    home.mkdir(parents=True, exist_ok=True)
    lines = [
        f"[mcp_servers.{name}]",
        f"command = {json.dumps(sys.executable)}",
        f"args = {json.dumps([str(STUBBORN_MCP), marker])}",
        *(f"{key} = {json.dumps(value)}" for key, value in keys.items()),
    ]
    (home / "config.toml").write_text("\n".join(lines) + "\n")
