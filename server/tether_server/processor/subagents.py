"""The sub-agents the model spawns (`core/agent_tools.py`): child threads, run, watched and closed here.

A child is an ordinary stored thread whose `source` is Codex's `{"subAgent": {"thread_spawn": ...}}`
(parent id, depth, nickname), so `thread/read` and `thread/list` show it as Codex does. At spawn every
connection subscribed to the parent is subscribed to the child: the child's events, and the approval
requests of its turns, reach the parent's clients (as on Codex, which sends them to the client
whose thread spawned it). Which agents are open is kept in memory only: after a restart a child is
a thread like any other, no longer an agent its parent can wait on.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from tether_server import log
from tether_server.config import features
from tether_server.core.agent_specs import EFFORTS
from tether_server.core.agent_tools import FINAL, AgentError, AgentRefused, AgentState, Spawned
from tether_server.processor import lifecycle
from tether_server.processor.settings import new_thread_record
from tether_server.processor.state import ServerState
from tether_server.store.sources import spawn_info, spawn_source
from tether_server.threads.handle import ThreadEvent, ThreadHandle

_log = log.get("tether.subagents")

MAX_THREADS, MAX_DEPTH = 6, 1
"""Codex's defaults for `agents.max_threads` (open agents per root thread) and `agents.max_depth`."""
THREAD_LIMIT = "agent thread limit reached"
DEPTH_LIMIT = "Agent depth limit reached. Solve the task yourself."

# Nicknames are Tether's own pick (Codex draws from its own list of scientists).
_NICKNAMES = (
    "Noether", "Euler", "Lovelace", "Gauss", "Hopper", "Turing", "Curie", "Riemann", "Hilbert", "Kepler",
    "Fermat", "Pascal", "Galois", "Cantor", "Laplace", "Fourier", "Lagrange", "Dirac", "Bohr", "Planck",
)  # fmt: skip


@dataclass
class _Agent:
    thread_id: str
    parent_id: str
    root_id: str
    nickname: str
    state: AgentState = field(default_factory=lambda: AgentState("pendingInit"))
    last_message: str | None = None
    closed: bool = False
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    on_final: Callable[[_Agent], None] | None = None

    def set(self, state: AgentState) -> None:
        self.state = state
        self.changed.set()
        self.changed = asyncio.Event()

    def on_event(self, event: ThreadEvent) -> None:
        params = event.params
        if event.method == "turn/started":
            self.last_message = None
            self.set(AgentState("running"))
        elif event.method == "item/completed":
            item = params.get("item") or {}
            if item.get("type") == "agentMessage":
                self.last_message = item.get("text")
        elif event.method == "turn/completed":
            turn = params.get("turn") or {}
            status = turn.get("status")
            if status == "completed":
                self.set(AgentState("completed", self.last_message))
            elif status == "interrupted":
                self.set(AgentState("interrupted"))
            else:
                error = turn.get("error") or {}
                self.set(AgentState("errored", error.get("message") if isinstance(error, dict) else None))
            if self.on_final is not None:
                self.on_final(self)


class SubAgents:
    """Implements the core's `AgentPort` over the processor's threads and subscriptions."""

    def __init__(self, state: ServerState) -> None:
        self._state = state
        self._agents: dict[str, _Agent] = {}
        self._mailbox: dict[str, list[tuple[str, AgentState]]] = {}
        self._spawned = 0

    # ---- config ---------------------------------------------------------------------------------

    def _limit(self, key: str, default: int) -> int:
        table = self._state.config.config.agents
        value = table.get(key) if isinstance(table, Mapping) else None
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default

    def _enabled(self) -> bool:
        flag = next(f for f in features.CATALOGUE if f.name == "multi_agent")
        return features.enabled(flag, self._state.config.config.features, self._state.feature_enablement)

    def _depth(self, thread_id: str) -> int:
        agent = self._agents.get(thread_id)
        if agent is not None:
            return self._depth(agent.parent_id) + 1
        handle = self._state.threads.get(thread_id)
        spawn = spawn_info(handle.record.source) if handle is not None else None
        depth = spawn.get("depth") if spawn is not None else 0
        return depth if isinstance(depth, int) else 0

    def offered(self, thread_id: str) -> bool:
        return self._enabled() and self._depth(thread_id) < self._limit("max_depth", MAX_DEPTH)

    # ---- the port -------------------------------------------------------------------------------

    async def spawn(
        self, parent_id: str, turn_id: str, message: str, model: str | None, effort: str | None
    ) -> Spawned:
        state = self._state
        parent = state.threads.get(parent_id)
        if parent is None:
            raise AgentError(f"thread {parent_id} is not loaded")
        if effort is not None and effort not in EFFORTS:
            raise AgentRefused(
                f"Reasoning effort `{effort}` is not supported for model `{model or parent.settings.model}`. "
                f"Supported reasoning efforts: {', '.join(EFFORTS)}"
            )
        depth = self._depth(parent_id) + 1
        if depth > self._limit("max_depth", MAX_DEPTH):
            raise AgentError(DEPTH_LIMIT)
        root = self._agents[parent_id].root_id if parent_id in self._agents else parent_id
        open_agents = [a for a in self._agents.values() if a.root_id == root and not a.closed]
        if len(open_agents) >= self._limit("max_threads", MAX_THREADS):
            raise AgentError(THREAD_LIMIT)
        nickname = _NICKNAMES[self._spawned % len(_NICKNAMES)]
        self._spawned += 1
        base = parent.settings
        settings = replace(
            base, model=model or base.model, effort=effort or base.effort or "medium", additional_context=()
        )
        record = new_thread_record(
            settings, originator=parent.record.originator, source=spawn_source(parent_id, depth, nickname)
        )
        handle = state.threads.create(record, settings, ephemeral=parent.ephemeral)
        for conn in state.subscriptions.subscribers(parent_id):
            state.subscriptions.subscribe(record.id, conn)
        agent = _Agent(record.id, parent_id, root, nickname, on_final=self._post)
        self._agents[record.id] = agent
        handle.add_listener(agent.on_event)
        content = [{"type": "text", "text": message, "text_elements": []}]
        started = await handle.start_turn(content, None, settings)
        started.release()
        _log.info("subagent.spawned", thread_id=record.id, parent_thread_id=parent_id, depth=depth)
        return Spawned(record.id, nickname, settings.model, settings.effort or "medium")

    def _post(self, agent: _Agent) -> None:
        self._mailbox.setdefault(agent.parent_id, []).append((agent.thread_id, agent.state))

    def take_notifications(self, thread_id: str) -> list[tuple[str, AgentState]]:
        return self._mailbox.pop(thread_id, [])

    def state(self, agent_id: str) -> AgentState | None:
        agent = self._agents.get(agent_id)
        return agent.state if agent is not None and not agent.closed else None

    async def resume(self, agent_id: str) -> AgentState | None:
        agent = self._agents.get(agent_id)
        if agent is None:
            return None
        if agent.closed:
            if await self._reopen(agent) is None:
                return None
            agent.closed = False
            agent.set(AgentState("pendingInit"))
        return agent.state

    async def _reopen(self, agent: _Agent) -> ThreadHandle | None:
        """The agent's thread, loaded again if it was closed or unloaded (then watched and routed to
        the parent's clients again)."""
        opened = await self._state.threads.open(agent.thread_id)
        if opened is None:
            return None
        if agent.closed or opened.loaded_now:
            for conn in self._state.subscriptions.subscribers(agent.parent_id):
                self._state.subscriptions.subscribe(agent.thread_id, conn)
            opened.handle.add_listener(agent.on_event)
        return opened.handle

    async def wait(self, agent_ids: list[str], timeout_s: float) -> dict[str, AgentState]:
        deadline = time.monotonic() + timeout_s
        while True:
            finished = {a: s for a in agent_ids if (s := self._state_of(a)).status in FINAL}
            remaining = deadline - time.monotonic()
            if finished or remaining <= 0:
                return finished
            waits = [
                asyncio.ensure_future(self._agents[a].changed.wait()) for a in agent_ids if a in self._agents
            ]
            try:
                await asyncio.wait(waits, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for pending in waits:
                    pending.cancel()

    def _state_of(self, agent_id: str) -> AgentState:
        agent = self._agents.get(agent_id)
        return agent.state if agent is not None else AgentState("notFound")

    async def close(self, agent_id: str) -> AgentState:
        agent = self._agents[agent_id]
        previous = agent.state
        # Its own agents go first, as Codex closes the open descendants of the one it closes.
        for child in [a for a in self._agents.values() if a.parent_id == agent_id and not a.closed]:
            await self.close(child.thread_id)
        handle = self._state.threads.get(agent_id)
        if handle is not None:
            handle.remove_listener(agent.on_event)
            await handle.stop_turn()
            await lifecycle.unload(self._state, handle)
        agent.closed = True
        if previous.status not in FINAL:
            agent.set(AgentState("shutdown"))
        return previous

    async def send_input(self, agent_id: str, message: str, interrupt: bool) -> str:
        # An open agent's thread may have been unloaded meanwhile (no client left on it).
        handle = await self._reopen(self._agents[agent_id])
        if handle is None:
            raise AgentError(f"agent with id {agent_id} not found")
        if interrupt:
            await handle.stop_turn()
        content = [{"type": "text", "text": message, "text_elements": []}]
        started = await handle.start_turn(content, None, handle.settings)
        started.release()
        return started.id
