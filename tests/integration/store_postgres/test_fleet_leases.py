"""Two daemons on one PostgreSQL: thread leases, takeover after a dead owner, fencing a stale one.

Real daemons (`tether app-server --store postgresql://…` subprocesses) on a throwaway cluster,
the fake model holding a turn open at a gate. Leases last 3 s here (renewed every second), so a
dead owner's thread is taken over within 4 s. Nothing waits by sleeping: every wait is bounded
and ends on a reply, a notification or the fake model's gate.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

from tests.conftest import StartServer
from tests.integration.store_postgres.fleet_nodes import fleet_status, start_node
from tests.support.appserver import WAIT_S, AppServer

from tether_server.threads.manager import SEQ_GAP_AFTER_UNCLEAN_END
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

LEASE_S = 3.0


async def _start_held_turn(
    node: AppServer, fake_model: FakeResponsesServer, workdir: Path
) -> tuple[str, str]:
    """A thread on `node` whose turn is running, its model reply held at the gate `hold`."""
    fake_model.add(script.reply(script.gated("hold"), script.message("words of a stale owner")))
    tid = (await node.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    started = await node.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "go"}]})
    await fake_model.wait_for_gate("hold", within_s=WAIT_S)
    return tid, started["turn"]["id"]


async def test_a_thread_owned_by_a_live_node_is_refused_by_name_and_fleet_status_shows_both(
    tmp_path: Path,
    start_server: StartServer,
    fake_model: FakeResponsesServer,
    workdir: Path,
    postgres_url: str,
) -> None:
    fake_model.add(script.text_reply("done"))
    first = await start_node(start_server, postgres_url, "node-a", tmp_path / "a", LEASE_S)
    tid = (await first.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    mark = first.mark()
    await first.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "hi"}]})
    await first.notification("turn/completed", after=mark)
    second = await start_node(start_server, postgres_url, "node-b", tmp_path / "b", LEASE_S)

    reply = await second.call("thread/resume", {"threadId": tid})
    assert reply["error"]["code"] == -32600
    assert f"thread {tid} is owned by fleet node 'node-a'" in reply["error"]["message"]
    # Reads need no lease: any node answers them.
    read = await second.request("thread/read", {"threadId": tid, "includeTurns": True})
    assert [t["status"] for t in read["thread"]["turns"]] == ["completed"]

    nodes = {n["nodeId"]: n for n in await fleet_status(postgres_url)}
    assert set(nodes) == {"node-a", "node-b"}
    assert (nodes["node-a"]["live"], nodes["node-a"]["threadsOwned"], nodes["node-a"]["address"]) == (
        True,
        1,
        None,
    )
    assert (nodes["node-b"]["live"], nodes["node-b"]["threadsOwned"]) == (True, 0)

    # A clean stop releases the lease at once: the other node resumes without waiting.
    assert await first.close() == 0
    began = time.monotonic()
    resumed = await second.request("thread/resume", {"threadId": tid})
    assert time.monotonic() - began < LEASE_S
    assert resumed["thread"]["id"] == tid
    nodes = {n["nodeId"]: n for n in await fleet_status(postgres_url)}
    assert (nodes["node-a"]["live"], nodes["node-a"]["threadsOwned"]) == (False, 0)
    assert (nodes["node-b"]["live"], nodes["node-b"]["threadsOwned"]) == (True, 1)


async def test_a_killed_owners_thread_is_taken_over_after_its_lease_and_its_turn_ends_interrupted(
    tmp_path: Path,
    start_server: StartServer,
    fake_model: FakeResponsesServer,
    workdir: Path,
    postgres_url: str,
) -> None:
    first = await start_node(start_server, postgres_url, "node-a", tmp_path / "a", LEASE_S)
    second = await start_node(start_server, postgres_url, "node-b", tmp_path / "b", LEASE_S)
    tid, turn_id = await _start_held_turn(first, fake_model, workdir)
    seen = max(int(m.get("seq", 0)) for m in first.messages)
    first.kill()
    await first.proc.wait()

    mark = second.mark()
    began = time.monotonic()
    resumed = await second.request("thread/resume", {"threadId": tid})
    assert time.monotonic() - began <= LEASE_S + 1.5  # expiry plus a second, and a little for the call
    assert [(t["id"], t["status"]) for t in resumed["thread"]["turns"]] == [(turn_id, "interrupted")]
    done = await second.notification("turn/completed", after=mark)
    assert (done["params"]["turn"]["id"], done["params"]["turn"]["status"]) == (turn_id, "interrupted")
    # Numbered past every seq the dead owner may have sent, as after a crash.
    assert done["seq"] > seen + SEQ_GAP_AFTER_UNCLEAN_END - 1

    fake_model.add(script.text_reply("continued on node-b"))
    mark = second.mark()
    await second.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "again"}]})
    done = await second.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "completed"
    read = await second.request("thread/read", {"threadId": tid, "includeTurns": True})
    assert [t["status"] for t in read["thread"]["turns"]] == ["interrupted", "completed"]
    fake_model.release("hold")


async def test_a_stale_owners_write_is_refused_and_the_thread_stays_intact(
    tmp_path: Path,
    start_server: StartServer,
    fake_model: FakeResponsesServer,
    workdir: Path,
    postgres_url: str,
) -> None:
    first = await start_node(start_server, postgres_url, "node-a", tmp_path / "a", LEASE_S)
    second = await start_node(start_server, postgres_url, "node-b", tmp_path / "b", LEASE_S)
    tid, turn_id = await _start_held_turn(first, fake_model, workdir)
    os.kill(first.proc.pid, signal.SIGSTOP)  # paused past its lease: alive, but no longer the owner
    try:
        resumed = await second.request("thread/resume", {"threadId": tid})
    finally:
        os.kill(first.proc.pid, signal.SIGCONT)
    assert [t["status"] for t in resumed["thread"]["turns"]] == ["interrupted"]

    # The former owner gets its model reply now, or first finds its lease gone: either way its
    # write is refused in the commit's transaction, and its client sees the thread fail there.
    mark = first.mark()
    fake_model.release("hold")
    await first.notification(
        "thread/status/changed",
        after=mark,
        where=lambda p: p["threadId"] == tid and p["status"] == {"type": "systemError"},
    )
    assert not [m for m in first.since(mark) if m.get("method") == "item/completed"]
    # Its client is told the turn is over, and why, rather than waiting for it for ever.
    ended = await first.notification("turn/completed", after=mark, where=lambda p: p["turn"]["id"] == turn_id)
    assert ended["params"]["turn"]["status"] == "failed"
    assert "lost its lease" in ended["params"]["turn"]["error"]["message"]

    read = await second.request("thread/read", {"threadId": tid, "includeTurns": True})
    [turn] = read["thread"]["turns"]
    assert (turn["id"], turn["status"]) == (turn_id, "interrupted")
    assert not [i for i in turn["items"] if i["type"] == "agentMessage"]
    assert "lease.lost" in first.stderr() or "lost its lease and its write was refused" in first.stderr()

    fake_model.add(script.text_reply("node-b goes on"))
    mark = second.mark()
    await second.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "next"}]})
    done = await second.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "completed"


async def _exit_and_stderr(home: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    home.mkdir(parents=True, exist_ok=True)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tether_server", *args,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "TETHER_HOME": str(home), **(env or {})},
    )  # fmt: skip
    async with asyncio.timeout(WAIT_S):
        _, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, err.decode()


async def test_bad_fleet_options_are_configuration_errors(tmp_path: Path, postgres_url: str) -> None:
    status, err = await _exit_and_stderr(
        tmp_path / "h", "app-server", "--store", postgres_url, "--lease-seconds", "0.1"
    )
    assert status == 2
    assert "configuration error: lease of 0.1 s: a lease lasts from 0.5 to 3600 seconds" in err
    status, err = await _exit_and_stderr(
        tmp_path / "h", "app-server", "--store", postgres_url, env={"TETHER_LEASE_SECONDS": "soon"}
    )
    assert (status, "TETHER_LEASE_SECONDS='soon' is not a number of seconds" in err) == (2, True)
    status, err = await _exit_and_stderr(tmp_path / "h", "fleet", "status", env={"TETHER_STORE": ""})
    assert status == 2
    assert "fleet status needs a PostgreSQL store" in err
    assert await fleet_status(postgres_url) == []  # a database no node ran on: no line
