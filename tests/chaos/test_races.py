"""Races between clients and a running turn; each must end in a state thread/read agrees with.

Every race runs ROUNDS times on one daemon (WebSocket on loopback, two clients), with the
racing request sent at a randomly chosen message of the turn (seeded; the seed is printed on
failure).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.chaos.conftest import scale
from tests.support.appserver import mock_provider_args
from tests.support.rpcclient import RpcClient
from tests.support.wsclient import SocketServer, WsClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

ROUNDS = scale(ci=2, full=40)
APPROVAL = "item/commandExecution/requestApproval"


@dataclass
class Pair:
    server: SocketServer
    a: WsClient
    b: WsClient
    workdir: Path

    async def thread(self, **extra: Any) -> str:
        params = {"cwd": str(self.workdir), **extra}
        tid = str((await self.a.request("thread/start", params))["thread"]["id"])
        await self.b.request("thread/resume", {"threadId": tid})
        return tid


@pytest.fixture
async def pair(tmp_path: Path, fake_model: FakeResponsesServer, workdir: Path) -> AsyncIterator[Pair]:
    args = [*mock_provider_args(fake_model.base_url), "--listen", "ws://127.0.0.1:0"]
    server = await SocketServer.start(tmp_path / "home", args)
    a, b = await server.connect_ws(), await server.connect_ws()
    await a.initialize("racer_a")
    await b.initialize("racer_b")
    yield Pair(server, a, b, workdir)
    for client in (a, b):
        await client.close(check=False)
    assert server.proc.returncode is None, "the daemon died during the races"
    await server.stop()
    a.check()
    b.check()


def turn(text: str = "go") -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


async def outcome(request: Any) -> dict[str, Any]:
    """The whole reply to a request: its result or its error (a lost race may be refused)."""
    client, method, params = request
    reply: dict[str, Any] = await client.call(method, params)
    return reply


async def at_random_message(client: RpcClient, rng: random.Random, after: int, most: int = 12) -> None:
    """Return once the client has received a random number (0..most) of messages after `after`."""
    wanted = rng.randint(0, most)
    if wanted:
        await client.wait_for(
            lambda m: len(client.messages) - after >= wanted or m.get("method") == "turn/completed",
            after=after,
        )


def ends(turn_id: str) -> Callable[[dict[str, Any]], bool]:
    return lambda params: bool(params["turn"]["id"] == turn_id)


async def settled(client: RpcClient, tid: str) -> dict[str, Any]:
    """thread/read once no turn of the thread is in progress (the client is subscribed)."""
    while True:
        read = await client.request("thread/read", {"threadId": tid, "includeTurns": True})
        running = [t["id"] for t in read["thread"]["turns"] if t["status"] == "inProgress"]
        if not running:
            return read
        await client.notification("turn/completed", where=ends(running[0]))


def completions(client: RpcClient, after: int) -> dict[str, str]:
    return {
        m["params"]["turn"]["id"]: m["params"]["turn"]["status"]
        for m in client.since(after)
        if m.get("method") == "turn/completed"
    }


async def test_two_clients_starting_turns_on_one_thread_at_once(
    pair: Pair, fake_model: FakeResponsesServer, seeded_rng: random.Random
) -> None:
    tid = await pair.thread()
    for n in range(ROUNDS):
        fake_model.add(*(script.text_reply(f"reply {n}.{k}", deltas=4) for k in range(2)))
        mark = pair.a.mark()
        replies = await asyncio.gather(
            pair.a.call("turn/start", {"threadId": tid, "input": turn("from a")}),
            pair.b.call("turn/start", {"threadId": tid, "input": turn("from b")}),
        )
        started = [r["result"]["turn"]["id"] for r in replies if "result" in r]
        assert started, replies
        for turn_id in started:
            await pair.a.notification("turn/completed", after=mark, where=ends(turn_id))
        read = await settled(pair.a, tid)
        statuses = {t["id"]: t["status"] for t in read["thread"]["turns"]}
        assert set(started) <= statuses.keys()
        assert all(statuses[t] == "completed" for t in started), statuses
        fake_model.discard_remaining()  # the reply a refused start left unused


async def test_interrupt_racing_completion(
    pair: Pair, fake_model: FakeResponsesServer, seeded_rng: random.Random
) -> None:
    tid = await pair.thread()
    for n in range(ROUNDS):
        fake_model.add(script.text_reply(f"short {n}", deltas=3))
        mark, mark_b = pair.a.mark(), pair.b.mark()
        turn_id = (await pair.a.request("turn/start", {"threadId": tid, "input": turn()}))["turn"]["id"]
        await at_random_message(pair.b, seeded_rng, mark_b)
        reply = await pair.b.call("turn/interrupt", {"threadId": tid, "turnId": turn_id})
        done = await pair.a.notification("turn/completed", after=mark, where=ends(turn_id))
        await pair.b.notification("turn/completed", after=mark_b, where=ends(turn_id))
        read = await settled(pair.a, tid)
        stored = {t["id"]: t["status"] for t in read["thread"]["turns"]}[turn_id]
        assert stored == done["params"]["turn"]["status"] in ("completed", "interrupted"), (reply, stored)
        assert list(completions(pair.a, mark)) == [turn_id]  # exactly one turn/completed
        assert list(completions(pair.b, mark_b)) == [turn_id]


async def test_steer_racing_completion_is_either_refused_or_kept(
    pair: Pair, fake_model: FakeResponsesServer, seeded_rng: random.Random
) -> None:
    tid = await pair.thread()
    for n in range(ROUNDS):
        fake_model.add(script.text_reply(f"short {n}", deltas=3), script.text_reply(f"after steer {n}"))
        mark, mark_b = pair.a.mark(), pair.b.mark()
        turn_id = (await pair.a.request("turn/start", {"threadId": tid, "input": turn()}))["turn"]["id"]
        await at_random_message(pair.b, seeded_rng, mark_b)
        steer = {"threadId": tid, "input": turn(f"steer {n}"), "expectedTurnId": turn_id}
        reply = await pair.b.call("turn/steer", steer)
        await pair.a.notification("turn/completed", after=mark, where=ends(turn_id))
        read = await settled(pair.a, tid)
        texts = [
            content.get("text")
            for t in read["thread"]["turns"]
            for item in t["items"]
            if item["type"] == "userMessage"
            for content in item["content"]
        ]
        if "result" in reply:
            assert f"steer {n}" in texts, f"an accepted steer was lost: {reply}"
        else:
            assert f"steer {n}" not in texts, f"a refused steer was kept: {reply}"
        fake_model.discard_remaining()  # the second reply is only used when the steer went through


async def test_two_clients_answering_one_approval(
    pair: Pair, fake_model: FakeResponsesServer, seeded_rng: random.Random
) -> None:
    tid = await pair.thread(sandbox="read-only", approvalPolicy="on-request")
    for n in range(ROUNDS):
        args = {"cmd": f"echo {n}", "sandbox_permissions": "require_escalated", "justification": "race"}
        fake_model.add(script.reply(script.function_call("exec_command", args)), script.text_reply("ok"))
        mark_a, mark_b = pair.a.mark(), pair.b.mark()
        await pair.a.request("turn/start", {"threadId": tid, "input": turn()})
        asked_a = await pair.a.server_request(APPROVAL, after=mark_a)
        asked_b = await pair.b.server_request(APPROVAL, after=mark_b)
        first, second = seeded_rng.sample(["accept", "decline"], 2)
        await asyncio.gather(
            pair.a.respond(asked_a["id"], {"decision": first}),
            pair.b.respond(asked_b["id"], {"decision": second}),
        )
        await pair.a.notification("turn/completed", after=mark_a)
        read = await settled(pair.a, tid)
        commands = [
            item for item in read["thread"]["turns"][-1]["items"] if item["type"] == "commandExecution"
        ]
        assert len(commands) == 1 and commands[0]["status"] in ("completed", "declined"), commands
        resolved = [m for m in pair.a.since(mark_a) if m.get("method") == "serverRequest/resolved"]
        assert len(resolved) == 1, resolved


async def test_unsubscribe_racing_a_broadcast(
    pair: Pair, fake_model: FakeResponsesServer, seeded_rng: random.Random
) -> None:
    tid = await pair.thread()
    for n in range(ROUNDS):
        fake_model.add(script.text_reply("streaming " * 20, deltas=20))
        await pair.b.request("thread/resume", {"threadId": tid})
        mark = pair.a.mark()
        await pair.a.request("turn/start", {"threadId": tid, "input": turn()})
        await at_random_message(pair.a, seeded_rng, mark, most=20)
        reply = await pair.b.call("thread/unsubscribe", {"threadId": tid})
        assert "result" in reply, reply
        answered_at = pair.b.messages.index(reply)
        await pair.a.notification("turn/completed", after=mark)
        await pair.b.request("thread/loaded/list", {})  # everything sent to b before this is in
        late = [
            m["method"]
            for m in pair.b.messages[answered_at + 1 :]
            if "method" in m
            and (m.get("params") or {}).get("threadId") == tid
            and m["method"] not in ("thread/status/changed", "thread/closed")
        ]
        assert not late, f"thread events after the unsubscribe answer: {late[:5]} (round {n})"
        await settled(pair.a, tid)


@pytest.mark.parametrize("method", ["thread/archive", "thread/delete"])
async def test_archive_or_delete_during_a_running_turn(
    pair: Pair, fake_model: FakeResponsesServer, seeded_rng: random.Random, method: str
) -> None:
    for n in range(ROUNDS):
        tid = await pair.thread()
        fake_model.add(script.reply(script.message(f"long {n} " * 10, deltas=10), script.delay(50)))
        mark = pair.a.mark()
        turn_id = (await pair.a.request("turn/start", {"threadId": tid, "input": turn()}))["turn"]["id"]
        await at_random_message(pair.a, seeded_rng, mark)
        reply = await pair.b.call(method, {"threadId": tid})
        if method == "thread/delete" and "result" in reply:
            gone = await pair.a.call("thread/read", {"threadId": tid})
            assert "error" in gone, gone
        else:
            if "result" in reply:
                await pair.a.request("thread/unarchive", {"threadId": tid})
            read = await settled(pair.a, tid)
            statuses = [t["status"] for t in read["thread"]["turns"] if t["id"] == turn_id]
            assert statuses and statuses[0] in ("completed", "interrupted"), (reply, statuses)
        listed = await pair.a.request("thread/list", {})
        assert isinstance(listed["data"], list)
        fake_model.discard_remaining()


async def test_resume_while_a_turn_is_starting(
    pair: Pair, fake_model: FakeResponsesServer, seeded_rng: random.Random
) -> None:
    tid = await pair.thread()
    await pair.b.request("thread/unsubscribe", {"threadId": tid})
    for n in range(ROUNDS):
        fake_model.add(script.text_reply(f"reply {n}", deltas=4))
        mark_b = pair.b.mark()
        started, resumed = await asyncio.gather(
            pair.a.request("turn/start", {"threadId": tid, "input": turn()}),
            pair.b.request("thread/resume", {"threadId": tid}),
        )
        turn_id = started["turn"]["id"]
        # b sees the turn end: live, or in the turns its resume returned.
        in_resume = {t["id"]: t["status"] for t in resumed["thread"]["turns"]}
        if in_resume.get(turn_id) != "completed":
            await pair.b.notification("turn/completed", after=mark_b, where=ends(turn_id))
        read = await settled(pair.a, tid)
        assert {t["id"]: t["status"] for t in read["thread"]["turns"]}[turn_id] == "completed"
        await pair.b.request("thread/unsubscribe", {"threadId": tid})
