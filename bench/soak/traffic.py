"""The soak's traffic: clients that own threads and run turns with tool calls on them, answer
approvals, list and read threads, and now and then drop their connection and resume with `afterSeq`.

The model is `tether_testing`'s scripted server in this process, topped up with fresh responses
(new item ids every time) so that it never runs dry and never repeats an id.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
from dataclasses import dataclass, field
from typing import Any

import orjson
from bench.runner import rawws
from bench.runner.rpc import Json, RpcError, WsClient

from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

PATCH = "*** Begin Patch\n*** Add File: soak-{n}.txt\n+written by the soak, turn {n}\n*** End Patch\n"
APPROVALS = ("item/commandExecution/requestApproval", "item/fileChange/requestApproval")
_KEEP_QUEUED = 200


@dataclass
class Tally:
    """What the traffic did, for the report; `turns_completed` feeds turns/s."""

    turns_completed: int = 0
    turns_failed: int = 0
    turns_interrupted: int = 0
    turns_refused: int = 0
    approvals: int = 0
    reconnects: int = 0
    duplicates: int = 0
    lists: int = 0
    reads: int = 0
    rotations: int = 0
    errors: dict[str, int] = field(default_factory=dict)

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


def model_responses(counter: itertools.count[int], rng: random.Random, n: int) -> list[dict[str, Any]]:
    """`n` responses for whichever turn asks next: a tool call half the time, else the final answer."""
    out: list[dict[str, Any]] = []
    for _ in range(n):
        i = next(counter)
        kind = rng.choice(["exec", "patch", "escalated", "text", "text", "text"])
        if kind == "exec":
            call = script.function_call("exec_command", {"cmd": f"echo soak {i}"})
            out.append(script.reply(script.message(f"running {i}", deltas=3), call))
        elif kind == "patch":
            out.append(script.reply(script.custom_tool_call("apply_patch", PATCH.format(n=i % 50))))
        elif kind == "escalated":
            args = {
                "cmd": f"echo approved {i}",
                "sandbox_permissions": "require_escalated",
                "justification": "soak",
            }
            out.append(script.reply(script.function_call("exec_command", args)))
        else:
            thought = script.reasoning([f"thinking {i}"], deltas=3)
            out.append(
                script.reply(thought, script.message(f"done {i} " + "word " * rng.randint(5, 60), deltas=8))
            )
    return out


async def keep_model_fed(fake: FakeResponsesServer, rng: random.Random, stop: asyncio.Event) -> None:
    counter = itertools.count()
    added = 0
    while not stop.is_set():
        if added - fake.served < _KEEP_QUEUED:
            fake.add(*model_responses(counter, rng, _KEEP_QUEUED))
            added += _KEEP_QUEUED
        fake.requests.clear()  # the fake records every request; a soak must not grow it
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.5)


class SoakClient(WsClient):
    """A WebSocket client that answers every approval and remembers the last seq of each thread."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        rng: random.Random,
        tally: Tally,
        seqs: dict[str, int],
    ) -> None:
        super().__init__(reader, writer)
        self.rng = rng
        self.tally = tally
        self.seqs = seqs
        self.resumed_after: dict[str, int] = {}

    def _deliver(self, message: Json) -> None:
        seq, params = message.get("seq"), message.get("params")
        if isinstance(seq, int) and isinstance(params, dict) and isinstance(params.get("threadId"), str):
            self._note_seq(params["threadId"], seq)
        if "id" in message and message.get("method") in APPROVALS:
            decision = self.rng.choice(["accept", "accept", "decline"])
            self._send(orjson.dumps({"id": message["id"], "result": {"decision": decision}}))
            self.tally.approvals += 1
            return
        super()._deliver(message)

    def _note_seq(self, thread_id: str, seq: int) -> None:
        floor = self.resumed_after.get(thread_id)
        if floor is not None and seq <= floor:
            self.tally.duplicates += 1  # resumed after `floor`: nothing at or before it may come again
        if seq > self.seqs.get(thread_id, 0):
            self.seqs[thread_id] = seq

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await super().close()


@dataclass
class Plan:
    """What every client shares: the daemon's URL, the live threads, how threads come and go."""

    url: str
    live: list[str]
    workdir: str
    rotate_after: int
    think_s: float
    retire: str = "delete"
    """What happens to a retired thread: `delete` (the database levels off) or `archive`."""


class Driver:
    """One client's loop: its own threads get its turns; it also follows a few others' threads.

    After `rotate_after` turns a thread is retired (unsubscribed, then deleted, or archived with
    `--retire archive`, so the daemon unloads it) and a new one takes its place: the working set
    stays the same size however long the soak.
    """

    def __init__(self, plan: Plan, own: list[str], rng: random.Random, tally: Tally) -> None:
        self.plan = plan
        self.url = plan.url
        self.own = own
        self.follow: list[str] = []
        self.turns: dict[str, int] = {}
        self.rng = rng
        self.tally = tally
        self.seqs: dict[str, int] = {}
        self.client: SoakClient | None = None

    async def connect(self, *, after_seq: bool) -> None:
        reader, writer, _ = await rawws.open_websocket(self.url)
        client = SoakClient(reader, writer, self.rng, self.tally, self.seqs)
        try:
            await client.initialize()
            others = [t for t in self.plan.live if t not in self.own]
            self.follow = self.rng.sample(others, k=min(2, len(others)))
            for tid in [*self.own, *self.follow]:
                await self._resume(client, tid, after_seq=after_seq)
        except BaseException:
            # A client that failed half-way is closed, not dropped: an open socket nobody reads
            # would count against the daemon (the first hour-long soak held 45 of them).
            await client.close()
            raise
        self.client = client

    async def _resume(self, client: SoakClient, tid: str, *, after_seq: bool) -> None:
        params: Json = {"threadId": tid}
        if after_seq and tid in self.seqs:
            params["afterSeq"] = self.seqs[tid]
            client.resumed_after[tid] = self.seqs[tid]
        try:
            await client.request("thread/resume", params)
        except RpcError:
            if tid in self.plan.live:
                raise
            self.follow = [t for t in self.follow if t != tid]  # its owner deleted it meanwhile

    async def run(self, deadline: float) -> None:
        loop = asyncio.get_running_loop()
        await self.connect(after_seq=False)
        while loop.time() < deadline:
            op = self.rng.choices(["turn", "list", "read", "reconnect"], weights=[70, 10, 14, 6])[0]
            try:
                await getattr(self, f"_{op}")()
            except (RpcError, ConnectionError, TimeoutError, OSError) as exc:
                self.tally.error(f"{op}: {type(exc).__name__}: {str(exc)[:80]}")
                if self.client is None or self.client.closed.is_set():
                    await self._reconnect()
            await asyncio.sleep(self.rng.uniform(0, 2 * self.plan.think_s))
        if self.client is not None:
            await self.client.close()

    async def _turn(self) -> None:
        assert self.client is not None
        tid = self.rng.choice(self.own)
        done = self.client.expect("turn/completed", lambda p: p.get("threadId") == tid)
        try:
            text = [{"type": "text", "text": "soak " + "x" * self.rng.randint(1, 200)}]
            await self.client.request("turn/start", {"threadId": tid, "input": text})
        except RpcError:
            done.cancel()
            self.tally.turns_refused += 1
            raise
        async with asyncio.timeout(300):
            params = await done
        self.turns[tid] = self.turns.get(tid, 0) + 1
        if self.turns[tid] >= self.plan.rotate_after:
            await self._rotate(tid)
        status = params["turn"]["status"]
        if status == "completed":
            self.tally.turns_completed += 1
        elif status == "interrupted":
            self.tally.turns_interrupted += 1
        else:
            self.tally.turns_failed += 1

    async def _rotate(self, tid: str) -> None:
        assert self.client is not None
        params = {"cwd": self.plan.workdir, "sandbox": "workspace-write", "approvalPolicy": "on-request"}
        fresh = str((await self.client.request("thread/start", params))["thread"]["id"])
        # Replaced before it is archived: a client that reconnects now follows live threads only.
        self.own[self.own.index(tid)] = fresh
        self.plan.live[self.plan.live.index(tid)] = fresh
        self.turns.pop(tid, None)
        self.seqs.pop(tid, None)
        await self.client.request("thread/unsubscribe", {"threadId": tid})
        # Deleted, the history stops growing the database (its pages are reused); archived, it stays.
        await self.client.request(f"thread/{self.plan.retire}", {"threadId": tid})
        self.tally.rotations += 1

    async def _list(self) -> None:
        assert self.client is not None
        await self.client.request("thread/list", {"limit": self.rng.choice([10, 25, 50])})
        self.tally.lists += 1

    async def _read(self) -> None:
        assert self.client is not None
        tid = self.rng.choice([t for t in [*self.own, *self.follow] if t in self.plan.live] or self.own)
        try:
            params = {"threadId": tid, "includeTurns": self.rng.random() < 0.3}
            await self.client.request("thread/read", params)
        except RpcError:
            if tid in self.plan.live:
                raise
            return  # its owner deleted it between the choice and the read
        self.tally.reads += 1

    async def _reconnect(self) -> None:
        if self.client is not None:
            await self.client.close()
        self.client = None
        await self.connect(after_seq=True)
        self.tally.reconnects += 1
