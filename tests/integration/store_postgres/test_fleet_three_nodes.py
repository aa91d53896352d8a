"""Three daemons on one PostgreSQL: a thread owned by A, driven from B, watched from C, A killed.

Issue 30's proof with three nodes: a client of B runs turns on A's thread while a client of C,
subscribed through `thread/resume`, sees the same notifications with the same `seq`s. A is
SIGKILLed with a turn held open at the fake model's gate: both clients are told, and without
asking they follow the thread to the node that takes it over once A's lease (2 s) expires: the
turn A left running ends `interrupted` for both, nothing that was reported complete is lost, and
C's client's next turn reaches B's client too.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from tests.conftest import StartServer
from tests.integration.store_postgres.fleet_nodes import fleet_secret, start_node, thread_events
from tests.support.appserver import WAIT_S, AppServer

from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

LEASE_S = 2


async def _caught_up(clients: list[tuple[AppServer, int]], tid: str) -> list[list[tuple[int, str]]]:
    """Every client's events of the thread once each has the highest seq any of them got."""
    last = max(e[0] for client, mark in clients for e in thread_events(client, mark, tid))
    for client, mark in clients:
        await client.wait_for(lambda m: m.get("seq") == last and "id" not in m, after=mark)
    return [thread_events(client, mark, tid) for client, mark in clients]


def _last_seq(client: AppServer, tid: str) -> int:
    return max(s for s, _ in thread_events(client, 0, tid))


def _turn_done(tid: str, turn_id: str, status: str) -> Any:
    return lambda p: p.get("threadId") == tid and p["turn"]["id"] == turn_id and p["turn"]["status"] == status


def _completed_items(read: dict[str, Any]) -> list[tuple[str, str]]:
    return [(t["id"], i["id"]) for t in read["thread"]["turns"] for i in t["items"]]


async def test_three_nodes_relay_fan_out_and_survive_the_owner_killed_mid_turn(
    tmp_path: Path,
    start_server: StartServer,
    fake_model: FakeResponsesServer,
    workdir: Path,
    postgres_url: str,
) -> None:
    secret = fleet_secret(tmp_path)
    url = postgres_url
    a, b, c = await asyncio.gather(
        *(start_node(start_server, url, f"node-{n}", tmp_path / n, LEASE_S, secret=secret) for n in "abc")
    )

    # A owns the thread (its first turn wrote the lease); B's and C's clients subscribe through A.
    fake_model.add(script.text_reply("placed on A"))
    tid = (await a.request("thread/start", {"cwd": str(workdir), "sandbox": "read-only"}))["thread"]["id"]
    mark = a.mark()
    await a.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "first"}]})
    await a.notification("turn/completed", after=mark)
    for client in (b, c):
        resumed = await client.request("thread/resume", {"threadId": tid})
        assert [t["status"] for t in resumed["thread"]["turns"]] == ["completed"]

    # B's client runs a turn on A's thread: B's and C's clients see the same events, same seqs.
    fake_model.add(script.text_reply("relayed from B"))
    mark_b, mark_c = b.mark(), c.mark()
    await b.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "second"}]})
    await b.notification("turn/completed", after=mark_b)
    seen_b, seen_c = await _caught_up([(b, mark_b), (c, mark_c)], tid)
    assert seen_b == seen_c and seen_b[-1][1] == "turn/completed"
    seqs = [s for s, _ in seen_b]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))

    # A turn from B that A holds at the gate, after one message the model completed.
    kept, never = script.message("said before the kill"), script.message("never said")
    fake_model.add(script.reply(kept, script.gated("hold"), never))
    mark_b, mark_c = b.mark(), c.mark()
    held = await b.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "third"}]})
    held_id = held["turn"]["id"]
    await fake_model.wait_for_gate("hold", within_s=WAIT_S)
    said = lambda p: p["item"]["type"] == "agentMessage" and p["item"]["text"] == "said before the kill"  # noqa: E731
    for client, m in ((b, mark_b), (c, mark_c)):
        await client.notification("item/completed", after=m, where=said)
    before = _completed_items(await a.request("thread/read", {"threadId": tid, "includeTurns": True}))

    # A dies mid-turn: both clients learn their subscription ended.
    mark_b, mark_c = b.mark(), c.mark()
    a.kill()
    await a.proc.wait()
    for client, m in ((b, mark_b), (c, mark_c)):
        lost = await client.notification("thread/status/changed", after=m)
        assert lost["params"] == {"threadId": tid, "status": {"type": "systemError"}}

    # Without asking, each client follows the thread to where it is served next: once A's lease
    # expires, B or C takes it over (the other relays to it), and both clients get the held
    # turn's end, `interrupted`, and the same events after it.
    began = time.monotonic()
    for client, m in ((b, mark_b), (c, mark_c)):
        await client.notification("turn/completed", after=m, where=_turn_done(tid, held_id, "interrupted"))
    assert time.monotonic() - began <= LEASE_S + 2
    seen_b, seen_c = await _caught_up([(b, mark_b), (c, mark_c)], tid)
    assert seen_b == seen_c
    assert [m for _, m in seen_b].count("turn/completed") == 1

    # Nothing reported complete was lost, whichever node reads it.
    for client in (b, c):
        read = await client.request("thread/read", {"threadId": tid, "includeTurns": True})
        assert _completed_items(read) == before
    last_items = read["thread"]["turns"][-1]["items"]
    assert [i["text"] for i in last_items if i["type"] == "agentMessage"] == ["said before the kill"]

    # C's client runs the next turn (on C, or relayed to B if B took over); B's client sees it all.
    fake_model.add(script.text_reply("served by C"))
    mark_b, mark_c = b.mark(), c.mark()
    nxt = await c.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "fourth"}]})
    for client, m in ((c, mark_c), (b, mark_b)):
        await client.notification(
            "turn/completed", after=m, where=_turn_done(tid, nxt["turn"]["id"], "completed")
        )
    seen_b, seen_c = await _caught_up([(b, mark_b), (c, mark_c)], tid)
    assert seen_b == seen_c
    fake_model.release("hold")
