"""The random-kill driver: turns with tool calls and approvals on several clients, then SIGKILL.

One round starts the daemon (WebSocket on loopback), connects the clients, checks what the last
round's kill left behind, then drives turns until a randomly chosen number of messages has
arrived and kills the daemon with SIGKILL. `Seen` is what the clients were told before the kill;
`check_after_restart` holds the daemon to it. Beside each turn a client saves a feedback bundle:
every save answered is a whole ZIP after the kill, and no save leaves a partial file at its path;
another creates a section and moves the thread into it (`crash_sections`), and another sets the
thread's goal (`crash_goals`), another disables a skill (`crash_skills`), and another attaches
a payload to the thread (`crash_attachments`), and one queues messages on a side thread
(`crash_queue`) and creates projects (`crash_projects`); plugins are installed and uninstalled
(`crash_plugins`); another records an external-agent import (`crash_imports`); another signs in
or out (`crash_signin`), or signs in to an OAuth MCP server (`crash_mcp_oauth`). The store is the
home's SQLite file or a PostgreSQL database (`crash_store`).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.chaos.crash_attachments import AttachmentAdds
from tests.chaos.crash_goals import GoalSets
from tests.chaos.crash_imports import ImportRecords
from tests.chaos.crash_mcp_oauth import McpSignIns
from tests.chaos.crash_plugins import PluginInstalls
from tests.chaos.crash_projects import ProjectCreates
from tests.chaos.crash_queue import QueueAdds
from tests.chaos.crash_sections import SectionMoves
from tests.chaos.crash_signin import SignIns
from tests.chaos.crash_skills import SkillDisables
from tests.chaos.crash_store import StoreProbe
from tests.support.appserver import mock_provider_args
from tests.support.rpcclient import WAIT_S, RpcClient
from tests.support.wsclient import SocketServer, WsClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

APPROVAL = "item/commandExecution/requestApproval"


@dataclass
class Seen:
    """What one client of the killed daemon was told about the thread."""

    completed_items: set[str] = field(default_factory=set)
    announced_turns: set[str] = field(default_factory=set)
    completed_turns: set[str] = field(default_factory=set)
    seqs: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, client: RpcClient, thread_id: str, after: int = 0) -> Seen:
        seen = cls()
        for m in client.since(after):
            params = m.get("params") or {}
            if "seq" in m and params.get("threadId") == thread_id:
                seen.seqs.append(int(m["seq"]))
            if params.get("threadId") != thread_id:
                continue
            method = m.get("method")
            if method == "item/completed":
                seen.completed_items.add(params["item"]["id"])
            elif method == "turn/started":
                seen.announced_turns.add(params["turn"]["id"])
            elif method == "turn/completed":
                seen.completed_turns.add(params["turn"]["id"])
        return seen


@dataclass
class Figures:
    kills: int = 0
    turns_started: int = 0
    items_seen_completed: int = 0
    approvals_answered: int = 0
    turns_interrupted_by_crash: int = 0
    feedback_saved: int = 0


def random_turn_script(rng: random.Random, n: int) -> list[dict[str, Any]]:
    """The model's side of one turn: zero to three tool rounds, then a message."""
    responses: list[dict[str, Any]] = []
    for step in range(rng.randint(0, 3)):
        kind = rng.choice(["exec", "exec", "escalated", "reasoning"])
        if kind == "exec":
            call = script.function_call("exec_command", {"cmd": f"echo chaos {n}.{step}"})
            responses.append(script.reply(script.message(f"running {n}.{step}", deltas=3), call))
        elif kind == "escalated":
            args = {
                "cmd": f"echo approved {n}.{step}",
                "sandbox_permissions": "require_escalated",
                "justification": "chaos approval",
            }
            responses.append(script.reply(script.function_call("exec_command", args)))
        else:
            thought = script.reasoning([f"thinking about {n}.{step}"], deltas=4)
            call = script.function_call("exec_command", {"cmd": "true"})
            responses.append(script.reply(thought, call))
    responses.append(script.text_reply(f"turn {n} done " + "word " * rng.randint(1, 40), deltas=8))
    return responses


async def answer_approvals(client: RpcClient, rng: random.Random, figures: Figures) -> None:
    """Answer every approval request this client gets, accept or decline at random."""
    index = 0
    with contextlib.suppress(AssertionError, ConnectionError, OSError):
        while True:
            async with asyncio.timeout(3600):
                request = await client.wait_for(
                    lambda m: m.get("method") == APPROVAL and "id" in m, after=index, within_s=3600
                )
            index = client.messages.index(request) + 1
            decision = rng.choice(["accept", "accept", "decline"])
            with contextlib.suppress(Exception):
                await client.respond(request["id"], {"decision": decision})
                figures.approvals_answered += 1


class CrashDriver:
    """Runs the rounds on one TETHER_HOME and one fake model; see the module docstring."""

    def __init__(
        self,
        home: Path,
        workdir: Path,
        fake: FakeResponsesServer,
        rng: random.Random,
        clients: int,
        store_url: str | None = None,
    ) -> None:
        self.home, self.workdir, self.fake, self.rng = home, workdir, fake, rng
        self.store = StoreProbe(home, store_url)
        self.n_clients = clients
        self.thread_id = ""
        self.figures = Figures()
        self.seen: list[Seen] = []
        self._turn_no = 0
        self.feedback_dir = home.parent / "feedback"
        self.feedback_dir.mkdir(parents=True, exist_ok=True)
        self.saves_asked: list[Path] = []
        self.saves_answered: set[str] = set()
        self.goals = GoalSets()
        self.skills = SkillDisables()
        self.plugins = PluginInstalls(home.parent / "plugin-market", home)
        self.sections = SectionMoves()
        self.imports = ImportRecords()
        self.attachments = AttachmentAdds()
        self.queue = QueueAdds()
        self.projects = ProjectCreates()
        self.signins = SignIns(home)
        self.mcp_signins = McpSignIns(home, home.parent / "mcp-oauth")
        self.queue_client: WsClient | None = None

    async def start(self) -> tuple[SocketServer, list[WsClient]]:
        args = [
            *mock_provider_args(self.fake.base_url),
            "--listen",
            "ws://127.0.0.1:0",
            *self.store.daemon_args(),
            *await self.mcp_signins.daemon_args(),
        ]
        server = await SocketServer.start(self.home, args)
        clients = []
        for n in range(self.n_clients):
            client = await server.connect_ws()
            await client.initialize(f"chaos_{n}")
            clients.append(client)
        return server, clients

    async def round(self, *, kill: bool = True) -> None:
        if self.thread_id:
            assert self.store.integrity() == "ok", "the database is damaged after a SIGKILL"
        server, clients = await self.start()
        queue_client = await server.connect_ws()
        await queue_client.initialize("chaos_queue", experimental=True)
        self.queue_client = queue_client
        try:
            await self.queue.check(queue_client)
            await self.projects.check(queue_client)
            await self.queue.prepare(queue_client, self.workdir, self.fake)
            if not self.thread_id:
                await self.plugins.prepare(clients[0])
                await self.mcp_signins.step(clients[0])  # one sign-in a kill cannot cut off
                params = {"cwd": str(self.workdir), "sandbox": "read-only", "approvalPolicy": "on-request"}
                self.thread_id = (await clients[0].request("thread/start", params))["thread"]["id"]
                marks = [c.mark() for c in clients]
                for client in clients[1:]:
                    await client.request("thread/resume", {"threadId": self.thread_id})
            else:
                marks = await self.check_after_restart(clients)
                self.check_feedback()
                await self.goals.check(clients[0], self.thread_id)
                await self.skills.check(clients[0])
                await self.sections.check(clients[0], self.thread_id)
                await self.imports.check(clients[0])
                await self.attachments.check(clients[0], self.thread_id)
                await self.plugins.check(clients[0])
                await self.signins.check(clients[0])
                await self.mcp_signins.check(clients[0])
            if kill:
                await self.drive_until_kill(server, clients)
                self.saves_answered |= {
                    str(m["result"]["savedPath"])
                    for c in clients
                    for m in c.messages
                    if isinstance(m.get("result"), dict) and "savedPath" in m["result"]
                }
                self.figures.feedback_saved = len(self.saves_answered)
                self.seen = [Seen.of(c, self.thread_id, m) for c, m in zip(clients, marks, strict=True)]
            else:
                await self.one_turn(clients)
        finally:
            if server.proc.returncode is None:
                server.proc.kill()
            await server.proc.wait()
            for client in [*clients, queue_client]:
                await client.close(check=False)
            for client in [*clients, queue_client]:
                client.check()
            if not kill:  # the last round: the fake issuer is no longer needed
                self.signins.close()

    async def one_turn(self, clients: list[WsClient]) -> None:
        """A whole turn on the restarted daemon: the thread still takes work."""
        self.fake.add(script.text_reply("after the storm"))
        answerers = [asyncio.create_task(answer_approvals(c, self.rng, self.figures)) for c in clients]
        try:
            mark = clients[0].mark()
            turn = await clients[0].request("turn/start", self._turn_params())
            done = await clients[0].notification(
                "turn/completed", after=mark, where=lambda p: p["turn"]["id"] == turn["turn"]["id"]
            )
            assert done["params"]["turn"]["status"] == "completed", done
        finally:
            for task in answerers:
                task.cancel()

    def _turn_params(self) -> dict[str, Any]:
        text = f"chaos turn {self._turn_no}"
        return {"threadId": self.thread_id, "input": [{"type": "text", "text": text}]}

    async def drive_until_kill(self, server: SocketServer, clients: list[WsClient]) -> None:
        """Turns back to back until `budget` messages reached client 0; then SIGKILL."""
        rng = self.rng
        budget = rng.randint(0, 80)
        answerers = [asyncio.create_task(answer_approvals(c, rng, self.figures)) for c in clients]
        watcher = clients[0]
        start_mark = watcher.mark()
        pending: list[asyncio.Task[Any]] = []
        try:
            while True:
                self._turn_no += 1
                self.fake.add(*random_turn_script(rng, self._turn_no))
                starter = rng.choice(clients)
                turn_mark = watcher.mark()
                pending.append(asyncio.create_task(starter.request("turn/start", self._turn_params())))
                self.figures.turns_started += 1
                save_path = self.feedback_dir / f"feedback-{self._turn_no}.zip"
                self.saves_asked.append(save_path)
                save = {"classification": "bug", "savePath": str(save_path), "reason": "chaos"}
                pending.append(asyncio.create_task(rng.choice(clients).request("feedback/save", save)))
                pending.append(
                    asyncio.create_task(self.goals.step(rng.choice(clients), self.thread_id, self._turn_no))
                )
                pending.append(asyncio.create_task(self.skills.step(rng.choice(clients), self._turn_no)))
                section_step = self.sections.step(rng.choice(clients), self.thread_id, self._turn_no)
                pending.append(asyncio.create_task(section_step))
                pending.append(asyncio.create_task(self.imports.step(rng.choice(clients), self._turn_no)))
                attach_step = self.attachments.step(rng.choice(clients), self.thread_id, self._turn_no)
                pending.append(asyncio.create_task(attach_step))
                pending.append(asyncio.create_task(self.plugins.step(rng.choice(clients), self._turn_no)))
                pending.append(asyncio.create_task(self.signins.step(rng.choice(clients), self._turn_no)))
                mcp_client = clients[self._turn_no % len(clients)]
                pending.append(asyncio.create_task(self.mcp_signins.step(mcp_client)))
                if self.queue_client is not None:
                    pending.append(asyncio.create_task(self.queue.step(self.queue_client, self._turn_no)))
                    project_step = self.projects.step(self.queue_client, self._turn_no)
                    pending.append(asyncio.create_task(project_step))

                if budget == 0:
                    break

                def stop_here(m: dict[str, Any]) -> bool:
                    over_budget = len(watcher.messages) - start_mark >= budget
                    return over_budget or m.get("method") == "turn/completed"

                await watcher.wait_for(stop_here, after=turn_mark, within_s=WAIT_S * 2)
                if len(watcher.messages) - start_mark >= budget:
                    break
            for _ in range(rng.randint(0, 20)):
                await asyncio.sleep(0)  # a few loop turns: kill between messages, not only on one
            server.proc.kill()
            await server.proc.wait()
            self.figures.kills += 1
        finally:
            for task in [*answerers, *pending]:
                task.cancel()
            for task in [*answerers, *pending]:
                with contextlib.suppress(BaseException):
                    await task

    def check_feedback(self) -> None:
        """Every answered save is a whole bundle; an unanswered one is whole or absent, never partial."""
        for path in self.saves_asked:
            if str(path) not in self.saves_answered and not path.exists():
                continue
            with zipfile.ZipFile(path) as bundle:
                assert bundle.testzip() is None, f"{path}: a damaged feedback bundle"
                assert "report.json" in bundle.namelist(), f"{path}: no report.json"

    async def check_after_restart(self, clients: list[WsClient]) -> list[int]:
        """Hold the restarted daemon to what the killed one told its clients; returns fresh marks."""
        tid = self.thread_id
        everything = Seen()
        for seen in self.seen:
            everything.completed_items |= seen.completed_items
            everything.announced_turns |= seen.announced_turns
            everything.completed_turns |= seen.completed_turns

        # Client 0 reconnects as a lossless client does: from the last seq it saw.
        resumer = clients[0]
        last = max(self.seen[0].seqs, default=0)
        mark = resumer.mark()
        await resumer.request("thread/resume", {"threadId": tid, "afterSeq": last, "excludeTurns": True})
        for client in clients[1:]:
            await client.request("thread/resume", {"threadId": tid})
        # The recovered turns' turn/completed follow the resume; wait for each the client missed.
        open_turns = self.seen[0].announced_turns - self.seen[0].completed_turns
        for turn_id in open_turns:

            def ends(params: dict[str, Any], turn_id: str = turn_id) -> bool:
                return bool(params["turn"]["id"] == turn_id)

            await resumer.notification("turn/completed", after=mark, where=ends)
        await resumer.request("thread/loaded/list", {})  # a round trip: the replay is in
        got = [int(m["seq"]) for m in resumer.since(mark) if "seq" in m]
        assert got == sorted(set(got)), f"replay out of order or duplicated: {got}"
        assert all(s > last for s in got), f"seq {got} reused after {last} (a client would drop them)"
        missing = set(self.store.stored_seqs(tid, last)) - set(got)
        assert not missing, f"resume afterSeq={last} skipped stored events {sorted(missing)}"

        read = await resumer.request("thread/read", {"threadId": tid, "includeTurns": True})
        turns = read["thread"]["turns"]
        statuses = {t["id"]: t["status"] for t in turns}
        items = {item["id"] for t in turns for item in t["items"]}
        lost = everything.completed_items - items
        assert not lost, f"items reported complete then lost: {sorted(lost)}"
        assert everything.announced_turns <= statuses.keys(), (everything.announced_turns, statuses)
        bad = {t: s for t, s in statuses.items() if s not in ("completed", "interrupted")}
        assert not bad, f"turns neither completed nor interrupted after restart: {bad}"
        self.figures.items_seen_completed += len(everything.completed_items)
        interrupted = everything.announced_turns - everything.completed_turns
        self.figures.turns_interrupted_by_crash += len(interrupted)
        return [c.mark() for c in clients]
