"""A turn a client was told about survives a crash: after restart it is listed, and ended.

The daemon is killed while its database write is held up by another writer, i.e. before the
turn's first commit could land. Whatever it announced by then (the turn/start answer, turn/started)
must be on disk after restart, closed as interrupted.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from pathlib import Path

from tests.conftest import StartServer
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

# How long we give the daemon to announce the turn while its commit is blocked. Not a
# synchronisation sleep: a daemon that answers before its commit answers well within it.
ANNOUNCE_WINDOW_S = 3.0


async def test_a_turn_announced_before_its_first_commit_is_closed_as_interrupted_after_a_crash(
    tmp_path: Path, start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("first done"), script.text_reply("never streamed"))
    home = tmp_path / "home"
    server = await start_server("-c", 'sandbox_mode="danger-full-access"', home=home)
    tid = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    mark = server.mark()
    await server.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "first"}]})
    await server.notification("turn/completed", after=mark)

    blocker = sqlite3.connect(home / "tether.sqlite", isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # the daemon's next commit now waits on us
    try:
        mark = server.mark()
        reply = asyncio.create_task(
            server.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "second"}]})
        )
        announced: set[str] = set()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(ANNOUNCE_WINDOW_S):
                announced.add((await asyncio.shield(reply))["turn"]["id"])
        started = [m for m in server.since(mark) if m.get("method") == "turn/started"]
        announced |= {m["params"]["turn"]["id"] for m in started}
        server.kill()
        reply.cancel()
        await server.close(check=False)
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()

    again = await start_server(home=home)
    turns = await again.request("thread/turns/list", {"threadId": tid, "sortDirection": "asc"})
    statuses = {t["id"]: t["status"] for t in turns["data"]}
    assert announced <= statuses.keys(), (announced, statuses)
    assert all(status in ("completed", "interrupted") for status in statuses.values()), statuses
    assert len(statuses) == 1 + len(announced)
