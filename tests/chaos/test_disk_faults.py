"""The disk fills up under the daemon: it says so, stays up, loses nothing, and recovers.

The daemon runs in a private mount namespace (`unshare -m`) whose $TETHER_HOME is a small
tmpfs; the test reaches that tmpfs through /proc/<pid>/root to fill it up, then frees it.
"""

from __future__ import annotations

import contextlib
import errno
import sqlite3
from pathlib import Path
from typing import Any

from tests.support.appserver import AppServer, mock_provider_args
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

MOUNT = 'mount -t tmpfs -o size=8m,mode=700 tmpfs "$TETHER_HOME" && exec "$@"'


async def start_on_small_tmpfs(home: Path, args: list[str]) -> AppServer:
    home.mkdir(parents=True, exist_ok=True)
    server = await AppServer.start(
        home,
        args,
        cwd=home.parent,
        prefix=["unshare", "-m", "--propagation", "private", "sh", "-c", MOUNT, "sh"],
        stderr_path=home.parent / "server.stderr.log",  # outside the tmpfs that hides `home`
    )
    await server.initialize()
    return server


def fill(path: Path) -> int:
    """Write `path` until the file system is full; the bytes written."""
    written = 0
    with path.open("wb") as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
                written += 65536
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
    return written


def integrity(db: Path) -> str:
    conn = sqlite3.connect(db)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


async def turn_outcome(server: AppServer, tid: str, text: str) -> tuple[dict[str, Any], str | None]:
    """The turn/start reply and, when it started, how the turn ended."""
    mark = server.mark()
    reply = await server.call("turn/start", {"threadId": tid, "input": [{"type": "text", "text": text}]})
    if "error" in reply:
        return reply, None
    turn_id = reply["result"]["turn"]["id"]
    done = await server.notification("turn/completed", after=mark, where=lambda p: p["turn"]["id"] == turn_id)
    return reply, str(done["params"]["turn"]["status"])


async def refused_clearly(server: AppServer, tid: str, text: str, why: str) -> list[str]:
    """A turn while the disk fails: refused or failed, with `why` in what the client is told."""
    mark = server.mark()
    reply, status = await turn_outcome(server, tid, text)
    told = [reply["error"]["message"]] if "error" in reply else []
    told += [m["params"]["error"]["message"] for m in server.since(mark) if m.get("method") == "error"]
    assert "error" in reply or status == "failed", (reply, status)
    assert any(why in message for message in told), told
    assert server.proc.returncode is None
    return told


async def test_a_full_disk_gives_a_clear_error_and_the_daemon_recovers_when_space_returns(
    tmp_path: Path, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    home = tmp_path / "home"
    server = await start_on_small_tmpfs(home, mock_provider_args(fake_model.base_url))
    try:
        inside = Path(f"/proc/{server.proc.pid}/root") / str(home).lstrip("/")
        tid = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
        fake_model.add(script.text_reply("before"))
        assert (await turn_outcome(server, tid, "before"))[1] == "completed"

        filler = inside / "filler"
        fill(filler)
        fake_model.add(script.text_reply("no room " * 2000))
        told = await refused_clearly(server, tid, "while full", "full")
        filler.unlink()  # space is back
        fake_model.discard_remaining()
        fake_model.add(script.text_reply("after full"))
        assert (await turn_outcome(server, tid, "after full"))[1] == "completed"

        print(f"disk faults: {told}")
        assert integrity(inside / "tether.sqlite") == "ok"
        read = await server.request("thread/read", {"threadId": tid, "includeTurns": True})
        assert all(t["status"] in ("completed", "failed", "interrupted") for t in read["thread"]["turns"])
    finally:
        with contextlib.suppress(ProcessLookupError):
            server.kill()
        await server.close(check=False)
    server.check()
