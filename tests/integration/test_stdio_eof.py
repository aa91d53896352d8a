"""stdin EOF ends a stdio daemon at every moment: while it loads, idle, and mid-turn.

A client that checks the server and quits (initialize, then EOF) must not wait for the daemon to
finish loading; a turn running at EOF is closed as interrupted, and nothing completed is lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.conftest import StartServer
from tests.support.appserver import WAIT_S, AppServer, mock_provider_args
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

_INITIALIZE = {
    "id": 1,
    "method": "initialize",
    "params": {"clientInfo": {"name": "eof_test", "version": "1"}},
}


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


async def _exit_status(server: AppServer) -> int:
    async with asyncio.timeout(WAIT_S):
        return await server.proc.wait()


def _hold_database(home: Path) -> sqlite3.Connection:
    """Lock the (new) database the daemon will open: its loader blocks on it until released."""
    home.mkdir(parents=True)
    holder = sqlite3.connect(home / "tether.sqlite", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    return holder


async def test_eof_right_after_initialize_exits_without_waiting_for_the_loader(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    holder = _hold_database(home)  # the daemon cannot finish loading while this is held
    try:
        server = await AppServer.start(home)
        await server.send_raw(_line(_INITIALIZE) + _line({"method": "initialized"}))
        await server.wait_for(lambda m: m.get("id") == 1)
        assert server.proc.stdin is not None
        server.proc.stdin.close()
        assert await _exit_status(server) == 0
    finally:
        holder.close()
    assert await server.close() == 0
    assert [m["id"] for m in server.messages] == [1]

    # The home is whole: a daemon started on it now loads and works.
    again = await AppServer.start(home)
    await again.initialize()
    started = await again.request("thread/start", {})
    assert started["thread"]["id"]
    assert await again.close() == 0


async def test_a_request_sent_before_eof_while_loading_is_still_answered(tmp_path: Path) -> None:
    server = await AppServer.start(tmp_path / "home")
    await server.send_raw(_line(_INITIALIZE) + _line({"id": 2, "method": "thread/loaded/list", "params": {}}))
    assert server.proc.stdin is not None
    server.proc.stdin.close()
    assert await _exit_status(server) == 0
    assert await server.close() == 0
    answers = {m["id"]: m for m in server.messages}
    assert answers[2]["result"]["data"] == []


async def test_eof_mid_turn_exits_and_the_turn_is_interrupted_after_restart(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    fake_model.add(script.text_reply("first done"))
    fake_model.add(script.reply(script.gated("never"), script.message("never streamed")))
    home = tmp_path / "home"
    server = await start_server(home=home)
    tid = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    mark = server.mark()
    await server.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "first"}]})
    await server.notification("turn/completed", after=mark)
    mark = server.mark()
    await server.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "second"}]})
    await server.notification("turn/started", after=mark)
    assert server.proc.stdin is not None
    server.proc.stdin.close()
    assert await _exit_status(server) == 0
    fake_model.release("never")

    # Recorded as interrupted as the daemon stopped, not left running until the next start.
    with contextlib.closing(sqlite3.connect(home / "tether.sqlite")) as db:
        stored = db.execute(
            "SELECT status FROM turns WHERE thread_id = ? ORDER BY ordinal", (tid,)
        ).fetchall()
    assert [row[0] for row in stored] == ["completed", "interrupted"]

    again = await AppServer.start(home, mock_provider_args(fake_model.base_url))
    await again.initialize()
    read = await again.request("thread/read", {"threadId": tid, "includeTurns": True})
    assert await again.close() == 0
    turns = read["thread"]["turns"]
    assert [t["status"] for t in turns] == ["completed", "interrupted"]
    assert [i["text"] for i in turns[0]["items"] if i["type"] == "agentMessage"] == ["first done"]
