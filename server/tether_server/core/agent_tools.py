"""Sub-agents: the model's tools to start child threads, wait for them and close them.

Named, shaped and answered as Codex 0.169.0 (`features.multi_agent`, on by default) offers them:
the tools sit in the `multi_agent_v1` namespace, deferred behind `tool_search` (never listed in the
request's `tools`), so a model calls `{"namespace": "multi_agent_v1", "name": "spawn_agent"}`, which
the registry looks up as `multi_agent_v1__spawn_agent`. The child threads themselves live outside
the core (the processor creates, runs and routes them); a turn reaches them through `AgentPort`.
Each call shows as a `collabAgentToolCall` item of the calling thread.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from tether_server.core import events as ev
from tether_server.core import items
from tether_server.core.agent_specs import (
    DESCRIPTION,
    NAMESPACE,
    SPECS,
    WAIT_DEFAULT_MS,
    WAIT_MAX_MS,
    WAIT_MIN_MS,
)
from tether_server.core.ids import now_ms
from tether_server.core.toolbox import Tool, ToolArgumentError, ToolCall, ToolContext, ToolOutput

FINAL = frozenset({"completed", "errored", "interrupted", "shutdown", "notFound"})
"""Statuses a wait ends on."""


class AgentError(Exception):
    """A sub-agent call that cannot be done; its message is the call's output."""


class AgentRefused(AgentError):
    """A spawn refused for its arguments before anything started (not a failed spawn)."""


@dataclass(frozen=True)
class AgentState:
    status: str  # CollabAgentStatus: pendingInit | running | completed | errored | ...
    message: str | None = None

    def wire(self) -> dict[str, Any]:
        return {"status": self.status, "message": self.message}

    def for_model(self) -> Any:
        """As Codex tells the model: snake_case names, a final message under its status."""
        if self.status in ("completed", "errored"):
            return {self.status: self.message}
        return {"pendingInit": "pending_init", "notFound": "not_found"}.get(self.status, self.status)


@dataclass(frozen=True)
class Spawned:
    agent_id: str
    nickname: str
    model: str
    effort: str


class AgentPort(Protocol):
    """The sub-agents of the threads, as the model's tools use them."""

    def offered(self, thread_id: str) -> bool:
        """Whether this thread's model gets the tools (the feature is on, the depth allows it)."""
        ...

    async def spawn(
        self, parent_id: str, turn_id: str, message: str, model: str | None, effort: str | None
    ) -> Spawned: ...

    def state(self, agent_id: str) -> AgentState | None:
        """The agent's status; None for one never spawned or closed."""
        ...

    async def resume(self, agent_id: str) -> AgentState | None:
        """Open a closed agent again (an open one stays as it is); None for one never spawned."""
        ...

    async def wait(self, agent_ids: list[str], timeout_s: float) -> dict[str, AgentState]:
        """The agents among `agent_ids` in a final status, once one is (empty on timeout)."""
        ...

    async def close(self, agent_id: str) -> AgentState: ...

    async def send_input(self, agent_id: str, message: str, interrupt: bool) -> str: ...

    def take_notifications(self, thread_id: str) -> list[tuple[str, AgentState]]:
        """The final statuses this thread's agents reached since it last took them."""
        ...


class AgentTools:
    """The `multi_agent_v1` tools of one thread's turn: looked up by namespaced name, never listed."""

    def __init__(self, port: AgentPort) -> None:
        self._port = port

    def specs(self) -> list[dict[str, Any]]:
        return []

    def find(self, name: str) -> Tool | None:
        prefix = f"{NAMESPACE}__"
        run = _RUNS.get(name.removeprefix(prefix)) if name.startswith(prefix) else None
        if run is None:
            return None
        port = self._port

        async def call(ctx: ToolContext, request: ToolCall) -> ToolOutput:
            if not port.offered(ctx.thread_id):
                # Past the depth limit the tools are not this thread's, as on Codex.
                # Codex words it with the namespace glued to the name.
                return ToolOutput(
                    f"unsupported call: {NAMESPACE}{request.name.removeprefix(prefix)}", success=False
                )
            try:
                return await run(port, ctx, request)
            except AgentError as exc:
                return ToolOutput(str(exc), success=False)

        return Tool(name, None, call)

    def search(self, thread_id: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
        """What `tool_search` adds for a query: the `multi_agent_v1` namespace with the tools whose
        name or description shares a word with it (none where the thread is not given them)."""
        query = set(_words(str(arguments.get("query") or "")))
        if not query or not self._port.offered(thread_id):
            return []
        found = [spec for spec in SPECS if query & set(_words(f"{spec['name']} {spec['description']}"))]
        if not found:
            return []
        return [{"type": "namespace", "name": NAMESPACE, "description": DESCRIPTION, "tools": found}]


_STOP_WORDS = frozenset({"a", "an", "the", "to", "of", "or", "and", "it", "its", "is", "for", "on", "with"})


def _words(text: str) -> list[str]:
    words = re.split(r"[^a-z0-9]+", text.lower())
    return [w for w in words if w and w not in _STOP_WORDS]


def _text(args: dict[str, Any], key: str) -> str | None:
    value = args.get(key)
    if value is not None and not isinstance(value, str):
        raise ToolArgumentError(
            f"failed to parse function arguments: invalid type: {_kind(value)}, expected a string"
        )
    return value


def _agent_id(args: dict[str, Any], key: str = "target") -> str:
    value = _text(args, key)
    if value is None:
        raise ToolArgumentError(f"failed to parse function arguments: missing field `{key}`")
    return value


def _kind(value: Any) -> str:
    """A JSON value as Codex's argument parser names it in its errors."""
    if isinstance(value, bool):
        return f"boolean `{str(value).lower()}`"
    if isinstance(value, int):
        return f"integer `{value}`"
    if isinstance(value, float):
        return f"floating point `{value}`"
    if isinstance(value, str):
        return f"string {json.dumps(value)}"
    return "sequence" if isinstance(value, list) else "map"


async def _item(ctx: ToolContext, item: items.CollabAgentToolCall) -> None:
    await ctx.sink.emit(ev.ItemStarted(ctx.thread_id, ctx.turn_id, item))


async def _done(ctx: ToolContext, item: items.CollabAgentToolCall, status: str = "completed") -> None:
    item.status, item.completed_at_ms = status, now_ms()
    ctx.record_item(item)
    await ctx.sink.emit(ev.ItemCompleted(ctx.thread_id, ctx.turn_id, item))


async def _spawn(port: AgentPort, ctx: ToolContext, call: ToolCall) -> ToolOutput:
    args = call.arguments()
    message = _text(args, "message")
    if not message:
        return ToolOutput("Provide one of: message or items", success=False)
    model, effort = _text(args, "model"), _text(args, "reasoning_effort")
    item = items.CollabAgentToolCall(call.call_id, "spawnAgent", ctx.thread_id, now_ms(), prompt=message)
    item.model, item.reasoning_effort = model or "", effort or "medium"  # as Codex shows them at first
    await _item(ctx, item)
    try:
        spawned = await port.spawn(ctx.thread_id, ctx.turn_id, message, model, effort)
    except AgentError as exc:
        await _done(ctx, item, "failed")
        text = str(exc) if isinstance(exc, AgentRefused) else f"collab spawn failed: {exc}"
        return ToolOutput(text, success=False)
    item.receiver_thread_ids = [spawned.agent_id]
    item.model, item.reasoning_effort = spawned.model, spawned.effort
    item.agents_states = {spawned.agent_id: AgentState("pendingInit").wire()}
    await _done(ctx, item)
    return ToolOutput(
        json.dumps({"agent_id": spawned.agent_id, "nickname": spawned.nickname}, separators=(",", ":"))
    )


async def _wait(port: AgentPort, ctx: ToolContext, call: ToolCall) -> ToolOutput:
    args = call.arguments()
    targets = args.get("targets")
    if targets is None:
        raise ToolArgumentError("failed to parse function arguments: missing field `targets`")
    if not isinstance(targets, list):
        raise ToolArgumentError(
            f"failed to parse function arguments: invalid type: {_kind(targets)}, expected a sequence"
        )
    for target in targets:
        _text({"target": target}, "target")
    if not targets:
        return ToolOutput("agent ids must be non-empty", success=False)
    for target in targets:
        _known(port, target)
    raw = args.get("timeout_ms")
    timeout_ms = raw if isinstance(raw, int | float) and not isinstance(raw, bool) else WAIT_DEFAULT_MS
    timeout_ms = min(max(timeout_ms, WAIT_MIN_MS), WAIT_MAX_MS)
    item = items.CollabAgentToolCall(call.call_id, "wait", ctx.thread_id, now_ms(), list(targets))
    await _item(ctx, item)
    finished = await port.wait(list(targets), timeout_ms / 1000)
    # As Codex shows it: the agents that finished, none on a timeout.
    item.receiver_thread_ids = list(finished)
    item.agents_states = {agent: state.wire() for agent, state in finished.items()}
    await _done(ctx, item)
    status = {agent: state.for_model() for agent, state in finished.items()}
    return ToolOutput(json.dumps({"status": status, "timed_out": not finished}, separators=(",", ":")))


async def _close(port: AgentPort, ctx: ToolContext, call: ToolCall) -> ToolOutput:
    target = _agent_id(call.arguments())
    _parsed(target)
    item = items.CollabAgentToolCall(call.call_id, "closeAgent", ctx.thread_id, now_ms(), [target])
    await _item(ctx, item)
    if port.state(target) is None:
        return await _not_found(ctx, item, target)
    previous = await port.close(target)
    item.agents_states = {target: previous.wire()}
    await _done(ctx, item)
    return ToolOutput(json.dumps({"previous_status": previous.for_model()}, separators=(",", ":")))


async def _send_input(port: AgentPort, ctx: ToolContext, call: ToolCall) -> ToolOutput:
    args = call.arguments()
    target, message = _agent_id(args), _text(args, "message")
    if not message:
        return ToolOutput("Provide one of: message or items", success=False)
    _parsed(target)
    item = items.CollabAgentToolCall(
        call.call_id, "sendInput", ctx.thread_id, now_ms(), [target], prompt=message
    )
    await _item(ctx, item)
    # The status the agent had when the input reached it, as Codex reports it.
    state = port.state(target)
    if state is None:
        return await _not_found(ctx, item, target)
    submission = await port.send_input(target, message, args.get("interrupt") is True)
    item.agents_states = {target: state.wire()}
    await _done(ctx, item)
    return ToolOutput(json.dumps({"submission_id": submission}, separators=(",", ":")))


async def _resume(port: AgentPort, ctx: ToolContext, call: ToolCall) -> ToolOutput:
    target = _agent_id(call.arguments(), "id")
    _parsed(target)
    item = items.CollabAgentToolCall(call.call_id, "resumeAgent", ctx.thread_id, now_ms(), [target])
    await _item(ctx, item)
    state = await port.resume(target)
    if state is None:
        return await _not_found(ctx, item, target)
    item.agents_states = {target: state.wire()}
    await _done(ctx, item)
    return ToolOutput(json.dumps({"status": state.for_model()}, separators=(",", ":")))


async def _not_found(ctx: ToolContext, item: items.CollabAgentToolCall, target: str) -> ToolOutput:
    """An agent never spawned, or closed: the item fails, as on Codex."""
    item.agents_states = {target: AgentState("notFound").wire()}
    await _done(ctx, item, "failed")
    return ToolOutput(f"agent with id {target} not found", success=False)


def _parsed(agent_id: str) -> None:
    try:
        uuid.UUID(agent_id)
    except ValueError:
        raise AgentError(f"invalid agent id {agent_id}") from None


def _known(port: AgentPort, agent_id: str) -> None:
    _parsed(agent_id)
    if port.state(agent_id) is None:
        raise AgentError(f"agent with id {agent_id} not found")


def deliver(port: AgentPort | None, thread_id: str, record: Callable[[dict[str, Any]], None]) -> None:
    """Before a model request: tell the model which of its agents finished since its last one, as
    Codex does, with a `<subagent_notification>` user message each."""
    if port is None:
        return
    for agent_id, state in port.take_notifications(thread_id):
        body = json.dumps({"agent_path": agent_id, "status": state.for_model()}, separators=(",", ":"))
        text = f"<subagent_notification>\n{body}\n</subagent_notification>"
        record({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})


_RUNS = {
    "spawn_agent": _spawn,
    "wait_agent": _wait,
    "close_agent": _close,
    "send_input": _send_input,
    "resume_agent": _resume,
}
