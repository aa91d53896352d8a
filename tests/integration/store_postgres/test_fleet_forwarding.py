"""Any daemon serves any thread: two real daemons on one PostgreSQL, relaying over their fleet listeners.

A thread lives on node A; a client of node B resumes it (with `afterSeq`), runs a turn on it and
answers its command approval, steers and interrupts another, all relayed to A over B's
authenticated fleet connection. Both nodes' clients see the same events with the same `seq`. When
A is killed, B's client is told and B takes the thread over after A's lease. The fleet listener refuses a peer
without the secret before it learns anything, and a daemon refuses a short secret file.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from tests.conftest import StartServer
from tests.integration.store_postgres.fleet_nodes import fleet_secret, fleet_status, start_node, thread_events
from tests.support.appserver import WAIT_S, AppServer
from tests.support.cli import run_tether
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tether_server.transports.fleet import FleetAuthError, connect_peer
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

LEASE_S = 3
ESCALATED = {
    "cmd": "echo relayed > out.txt",
    "sandbox_permissions": "require_escalated",
    "justification": "Allow writing out.txt in the workspace?",
}


async def _both_saw(
    x: AppServer, mark_x: int, y: AppServer, mark_y: int, tid: str
) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """Both clients' events of the thread once each has what the other has (the owner may emit
    after `turn/completed`; each client's stream catches up on its own time)."""
    last = max(e[0] for e in thread_events(x, mark_x, tid) + thread_events(y, mark_y, tid))
    for client, mark in ((x, mark_x), (y, mark_y)):
        await client.wait_for(lambda m: m.get("seq") == last and "id" not in m, after=mark)
    return thread_events(x, mark_x, tid), thread_events(y, mark_y, tid)


async def _turn(client: AppServer, tid: str, text: str) -> None:
    mark = client.mark()
    await client.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": text}]})
    await client.notification("turn/completed", after=mark, where=lambda p: p.get("threadId") == tid)


async def _refused(address: str, first: dict[str, Any], then: dict[str, Any] | None) -> list[Any]:
    """What a peer without the secret receives before the listener closes it (and the close code)."""
    got: list[Any] = []
    async with connect(address) as ws:
        await ws.send(json.dumps(first))
        try:
            async with asyncio.timeout(WAIT_S):
                if then is not None:
                    got.append(orjson.loads(await ws.recv()))
                    await ws.send(json.dumps(then))
                while True:
                    got.append(await ws.recv())
        except ConnectionClosed as closed:
            assert closed.rcvd is not None
            got.append(closed.rcvd.code)
    return got


async def test_a_client_of_another_node_resumes_runs_and_approves_a_turn_on_the_owner_with_its_seqs(
    tmp_path: Path,
    start_server: StartServer,
    fake_model: FakeResponsesServer,
    workdir: Path,
    postgres_url: str,
) -> None:
    secret = fleet_secret(tmp_path)
    a = await start_node(start_server, postgres_url, "node-a", tmp_path / "a", LEASE_S, secret=secret)
    b = await start_node(start_server, postgres_url, "node-b", tmp_path / "b", LEASE_S, secret=secret)

    nodes = {n["nodeId"]: n for n in await fleet_status(postgres_url)}
    address = nodes["node-a"]["address"]
    assert address.startswith("ws://127.0.0.1:") and not address.endswith(":0")
    assert nodes["node-b"]["address"].startswith("ws://127.0.0.1:") and nodes["node-b"]["address"] != address

    # Without the secret: a random nonce at most, then the door closes (1008), nothing else.
    wrong = await _refused(address, {"nonce": "ab" * 32}, {"proof": "00" * 32})
    assert set(wrong[0]) == {"nonce"} and wrong[1:] == [1008]
    assert await _refused(address, {"id": 1, "method": "initialize", "params": {}}, None) == [1008]
    with pytest.raises(FleetAuthError):
        await connect_peer(address, b"x" * 32, timeout_s=WAIT_S, keepalive_s=WAIT_S)

    # A thread placed on A (where its client is), two turns; B's client had seen the first only.
    fake_model.add(script.text_reply("one"), script.text_reply("two"))
    started = await a.request(
        "thread/start", {"cwd": str(workdir), "sandbox": "read-only", "approvalPolicy": "on-request"}
    )
    tid = started["thread"]["id"]
    start = a.mark()
    await _turn(a, tid, "first")
    cut = thread_events(a, start, tid)[-1][0]
    mark = a.mark()
    await _turn(a, tid, "second")

    # B relays thread/resume to A: exactly the missed events follow the answer, with A's seqs.
    mark_b = b.mark()
    resumed = await b.request("thread/resume", {"threadId": tid, "afterSeq": cut, "excludeTurns": True})
    assert resumed["thread"]["id"] == tid
    # Relayed after the replay: its event comes once the replay is all here.
    await b.request("thread/name/set", {"threadId": tid, "name": "relayed"})
    await b.notification("thread/name/updated", after=mark_b)
    replayed, missed = await _both_saw(b, mark_b, a, mark, tid)
    assert replayed == missed and replayed[0][0] == cut + 1

    # B's client runs a turn on A's thread and answers its approval; both nodes' clients see it all.
    fake_model.add(
        script.reply(script.function_call("exec_command", ESCALATED, "call_relay_1")),
        script.text_reply("Wrote it."),
    )
    mark_a, mark_b = a.mark(), b.mark()
    turn = await b.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "write"}]})
    asked = await b.server_request("item/commandExecution/requestApproval", after=mark_b)
    assert (asked["params"]["threadId"], asked["params"]["itemId"]) == (tid, "call_relay_1")
    await a.server_request("item/commandExecution/requestApproval", after=mark_a)
    await b.respond(asked["id"], {"decision": "accept"})
    done = await b.notification("turn/completed", after=mark_b)
    assert (done["params"]["turn"]["id"], done["params"]["turn"]["status"]) == (
        turn["turn"]["id"],
        "completed",
    )
    await a.notification("turn/completed", after=mark_a)
    assert (workdir / "out.txt").read_text() == "relayed\n"
    seen_b, seen_a = await _both_saw(b, mark_b, a, mark_a, tid)
    assert seen_b == seen_a
    seqs = [s for s, _ in seen_b]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # in order, no gap
    methods = [m for _, m in seen_b]
    assert methods[-1] == "turn/completed"
    assert methods.index("turn/started") < methods.index("serverRequest/resolved") < len(methods) - 1

    # turn/steer and turn/interrupt from B reach the turn running on A.
    # A steer cuts the response short and asks the model again at once: that request is held too,
    # so the interrupt finds the turn waiting on the model however slow the machine.
    fake_model.add(
        script.reply(script.gated("hold"), script.message("never said")),
        script.reply(script.gated("steered"), script.message("never said either")),
    )
    mark_b = b.mark()
    held = (await b.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "wait"}]}))[
        "turn"
    ]
    await fake_model.wait_for_gate("hold", within_s=WAIT_S)
    steer = {"threadId": tid, "input": [{"type": "text", "text": "and this"}], "expectedTurnId": held["id"]}
    assert (await b.request("turn/steer", steer))["turnId"] == held["id"]
    await b.request("turn/interrupt", {"threadId": tid, "turnId": held["id"]})
    done = await b.notification("turn/completed", after=mark_b)
    assert (done["params"]["turn"]["id"], done["params"]["turn"]["status"]) == (held["id"], "interrupted")
    fake_model.release("hold")
    fake_model.release("steered")
    fake_model.discard_remaining()  # the steered answer, when the interrupt came before its request

    # The thread stayed on A: B only relayed.
    nodes = {n["nodeId"]: n for n in await fleet_status(postgres_url)}
    assert (nodes["node-a"]["threadsOwned"], nodes["node-b"]["threadsOwned"]) == (1, 0)

    # The owner dies: B's relay ends (its client is told the thread errored), and B's next request
    # for the thread takes it over once A's lease (3 s) has expired, rather than hanging.
    mark_b = b.mark()
    a.kill()
    await a.proc.wait()
    lost = await b.notification(
        "thread/status/changed", after=mark_b, where=lambda p: p["status"]["type"] == "systemError"
    )
    assert lost["params"] == {"threadId": tid, "status": {"type": "systemError"}} and "seq" not in lost
    began = time.monotonic()
    resumed = await b.request("thread/resume", {"threadId": tid})
    assert resumed["thread"]["id"] == tid and time.monotonic() - began <= LEASE_S + 2
    fake_model.add(script.text_reply("served by B"))
    await _turn(b, tid, "still there?")


async def test_bad_fleet_options_stop_the_daemon_with_exit_2_naming_them(tmp_path: Path) -> None:
    short, good = tmp_path / "short.secret", tmp_path / "good.secret"
    short.write_bytes(b"y" * 31)
    good.write_bytes(b"z" * 32)
    pg = ("--store", "postgresql://tether@127.0.0.1:1/never")  # refused before any connection
    cases = {
        f"--fleet-secret-file {short}: the fleet secret must be at least 32 bytes (it has 31)": (
            *pg, "--fleet-listen", "ws://127.0.0.1:0", "--fleet-secret-file", str(short),
        ),
        "--fleet-listen ws://0.0.0.0:7801: other nodes connect to the address given": (
            *pg, "--fleet-listen", "ws://0.0.0.0:7801", "--fleet-secret-file", str(good),
        ),
        "--fleet-listen and --fleet-secret-file need a PostgreSQL store": (
            "--fleet-listen", "ws://127.0.0.1:0", "--fleet-secret-file", str(good),
        ),
    }  # fmt: skip
    ran = await asyncio.gather(
        *(run_tether(tmp_path, "app-server", "--listen", "stdio://", *args) for args in cases.values())
    )
    for said, outcome in zip(cases, ran, strict=True):
        assert (outcome.status, said in outcome.stderr) == (2, True), outcome.stderr
