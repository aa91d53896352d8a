"""The file system under the database turns read-only while the daemon runs: it says so, stays up,
corrupts nothing, and writes again once the file system does. A daemon started on a read-only
home refuses to start, naming the database.

The kernel will not remount a file system read-only while a file on it is open for writing, so
$TETHER_HOME is a FUSE pass-through (`rofs.py`) whose switch file makes every change fail with
EROFS, as a read-only file system does.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.chaos.test_disk_faults import integrity, refused_clearly, turn_outcome
from tests.support.appserver import WAIT_S, AppServer, mock_provider_args
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


class ReadOnlySwitch:
    def __init__(self, source: Path, mountpoint: Path, switch: Path) -> None:
        self.source = source
        self.mountpoint = mountpoint
        self.switch = switch

    def on(self) -> None:
        self.switch.touch()

    def off(self) -> None:
        self.switch.unlink()


def _mounted(path: Path) -> bool:
    with open("/proc/self/mountinfo") as info:
        return any(line.split()[4] == str(path) for line in info)


@pytest.fixture
async def rofs(tmp_path: Path) -> AsyncIterator[ReadOnlySwitch]:
    fs = ReadOnlySwitch(tmp_path / "source", tmp_path / "home", tmp_path / "read-only")
    fs.source.mkdir()
    fs.mountpoint.mkdir()
    log = tmp_path / "rofs.log"
    with log.open("wb") as stderr:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.chaos.rofs", str(fs.source), str(fs.mountpoint), str(fs.switch),
            stderr=stderr,
        )  # fmt: skip
    try:
        async with asyncio.timeout(WAIT_S):
            while not _mounted(fs.mountpoint):
                assert proc.returncode is None, log.read_text()
                await asyncio.sleep(0.02)  # a mount has no event to wait on
        yield fs
    finally:
        umount = await asyncio.create_subprocess_exec(
            "umount", "-l", str(fs.mountpoint), stderr=asyncio.subprocess.DEVNULL
        )
        await umount.wait()
        try:
            async with asyncio.timeout(WAIT_S):
                await proc.wait()
        except TimeoutError:
            proc.kill()
            await proc.wait()


async def _start(home: Path, args: list[str]) -> AppServer:
    # The log outside the file system that turns read-only.
    return await AppServer.start(home, args, cwd=home.parent, stderr_path=home.parent / "server.stderr.log")


async def test_a_read_only_database_gives_a_clear_error_the_daemon_recovers_and_a_restart_is_refused(
    rofs: ReadOnlySwitch, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    args = mock_provider_args(fake_model.base_url)
    server = await _start(rofs.mountpoint, args)
    try:
        await server.initialize()
        tid = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
        fake_model.add(script.text_reply("before"))
        assert (await turn_outcome(server, tid, "before"))[1] == "completed"

        rofs.on()
        fake_model.add(script.text_reply("while read-only"))
        await refused_clearly(server, tid, "while read-only", "read-only")
        read = await server.request("thread/read", {"threadId": tid, "includeTurns": True})
        assert read["thread"]["turns"][0]["status"] == "completed"
        listed = await server.request("thread/list", {})
        assert tid in [t["id"] for t in listed["data"]]

        rofs.off()
        fake_model.discard_remaining()
        fake_model.add(script.text_reply("after"))
        assert (await turn_outcome(server, tid, "after"))[1] == "completed"
        read = await server.request("thread/read", {"threadId": tid, "includeTurns": True})
        assert all(t["status"] in ("completed", "failed", "interrupted") for t in read["thread"]["turns"])
        assert read["thread"]["turns"][-1]["status"] == "completed"
    finally:
        await server.close(check=False)
    server.check()
    assert integrity(rofs.source / "tether.sqlite") == "ok"

    # Started on a read-only home, the daemon refuses at once and says which file and why.
    rofs.on()
    again = await _start(rofs.mountpoint, args)
    async with asyncio.timeout(WAIT_S):
        code = await again.proc.wait()
    await again.close(check=False)
    assert code != 0
    stderr = again.stderr()
    assert str(rofs.mountpoint / "tether.sqlite") in stderr and "read-only" in stderr, stderr
