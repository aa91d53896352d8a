"""News for every client of a fleet: two real daemons on one PostgreSQL.

A client of node B sees the thread list change on node A as a client of A does: `thread/started`
(a fork's too, whose turns are too long for one NOTIFY and are read back from the database),
`thread/name/updated`, `project/changed`, `thread/archived` and `thread/unarchived`, each once,
with A's params, even when B's client made the change through its relay to A. And an idle thread
on A stays loaded while B's client is subscribed to it through the relay, as for a client of A.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import StartServer
from tests.integration.store_postgres.fleet_nodes import fleet_secret, start_node
from tests.support.appserver import AppServer

from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

LEASE_S = 3


def _got(client: AppServer, mark: int, method: str, tid: str) -> list[dict[str, Any]]:
    def about(params: dict[str, Any]) -> bool:
        return params.get("threadId") == tid or (params.get("thread") or {}).get("id") == tid

    return [
        m["params"]
        for m in client.since(mark)
        if m.get("method") == method and "id" not in m and about(m["params"])
    ]


async def _heard(client: AppServer, mark: int, method: str, tid: str) -> dict[str, Any]:
    msg = await client.notification(
        method,
        after=mark,
        where=lambda p: p.get("threadId") == tid or (p.get("thread") or {}).get("id") == tid,
    )
    params: dict[str, Any] = msg["params"]
    return params


async def test_a_client_of_another_node_sees_the_thread_list_change_once_and_relayed_threads_stay_loaded(
    tmp_path: Path,
    start_server: StartServer,
    fake_model: FakeResponsesServer,
    workdir: Path,
    postgres_url: str,
) -> None:
    secret = fleet_secret(tmp_path)
    # Projects are experimental.
    a = await start_node(
        start_server, postgres_url, "node-a", tmp_path / "a", LEASE_S, "-c", "thread_unload_delay_secs=0",
        secret=secret, experimental=True,
    )  # fmt: skip
    b = await start_node(
        start_server, postgres_url, "node-b", tmp_path / "b", LEASE_S, secret=secret, experimental=True
    )
    for node in (a, b):  # answered once the node listens for the fleet's news
        await node.request("thread/loaded/list", {})

    # A thread started on A appears on B as on A.
    mark_a, mark_b = a.mark(), b.mark()
    started = await a.request("thread/start", {"cwd": str(workdir), "sandbox": "read-only"})
    tid = started["thread"]["id"]
    on_a = await _heard(a, mark_a, "thread/started", tid)
    assert await _heard(b, mark_b, "thread/started", tid) == on_a
    assert on_a["thread"]["status"] == {"type": "idle"}

    # Renamed on A.
    await a.request("thread/name/set", {"threadId": tid, "name": "from A"})
    assert await _heard(b, mark_b, "thread/name/updated", tid) == {"threadId": tid, "threadName": "from A"}
    # A project created on A (news about no thread).
    roots = [{"path": str(workdir)}]
    project = await a.request("project/create", {"idempotencyKey": "k1", "name": "P", "roots": roots})
    pid = project["project"]["id"]
    changed = await b.notification("project/changed", after=mark_b, where=lambda p: p.get("projectId") == pid)
    assert changed["params"] == {"projectId": pid, "changeType": "created"}

    # A fork of a long thread: its thread/started (turns included) is longer than a NOTIFY holds.
    long = "x" * 9000
    fake_model.add(script.text_reply(long), script.text_reply("relayed"))
    source = (await a.request("thread/start", {"cwd": str(workdir), "sandbox": "read-only"}))["thread"]["id"]
    turn = a.mark()
    await a.request("turn/start", {"threadId": source, "input": [{"type": "text", "text": "long"}]})
    await a.notification("turn/completed", after=turn, where=lambda p: p.get("threadId") == source)
    fork = (await a.request("thread/fork", {"threadId": source}))["thread"]["id"]
    on_a = await _heard(a, mark_a, "thread/started", fork)
    assert len(on_a["thread"]["turns"]) == 1
    assert await _heard(b, mark_b, "thread/started", fork) == on_a

    # Archived by B's client through its relay to A (which has the fork loaded), unarchived on A.
    await b.request("thread/archive", {"threadId": fork})
    assert await _heard(a, mark_a, "thread/archived", fork) == {"threadId": fork}
    await a.request("thread/unarchive", {"threadId": fork})
    assert await _heard(b, mark_b, "thread/unarchived", fork) == {"threadId": fork}
    # NOTIFY keeps the order of the commits, and the relay's copy would have come before the
    # archive's answer: by now every copy has arrived.
    for method, of in [("thread/started", tid), ("thread/name/updated", tid), ("thread/started", fork),
                       ("thread/archived", fork), ("thread/unarchived", fork)]:  # fmt: skip
        assert len(_got(a, mark_a, method, of)) == 1, method
        assert len(_got(b, mark_b, method, of)) == 1, method
    assert [m["params"] for m in b.since(mark_b) if m.get("method") == "project/changed"] == [
        changed["params"]
    ]

    # The idle unloader (delay 0 on A) leaves alone a thread B's client is subscribed to.
    relay_mark = b.mark()
    await b.request("thread/resume", {"threadId": source})
    close_mark = a.mark()
    assert await a.request("thread/unsubscribe", {"threadId": source}) == {"status": "unsubscribed"}
    await b.request("turn/start", {"threadId": source, "input": [{"type": "text", "text": "go"}]})
    await b.notification("turn/completed", after=relay_mark, where=lambda p: p.get("threadId") == source)
    assert source in (await a.request("thread/loaded/list", {}))["data"]
    assert _got(a, close_mark, "thread/closed", source) == []
    # Once B's client leaves, it unloads as for a client of A.
    assert await b.request("thread/unsubscribe", {"threadId": source}) == {"status": "unsubscribed"}
    assert await _heard(a, close_mark, "thread/closed", source) == {"threadId": source}
    assert source not in (await a.request("thread/loaded/list", {}))["data"]
