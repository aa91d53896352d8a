"""One turn: sample the model, run its tool calls, repeat until it answers without calling tools."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tether_server import log
from tether_server.core import items
from tether_server.core.ids import now_ms
from tether_server.core.ports import EventSink
from tether_server.core.tool_calls import PARALLEL_TOOLS, ToolContext, dispatch, emit_turn_diff
from tether_server.errors import ProviderError
from tether_server.providers.base import (
    Completed,
    ModelProvider,
    ModelRequest,
    OutputItemAdded,
    OutputItemDone,
    OutputTextDelta,
    ReasoningSummaryDelta,
    ReasoningSummaryPartAdded,
    ReasoningTextDelta,
    TokenUsage,
)
from tether_server.providers.retry import retry_delay

_log = log.get("tether.core.turn")

TOOL_CALL_TYPES = frozenset({"function_call", "custom_tool_call"})


@dataclass
class SamplingResult:
    needs_follow_up: bool
    last_agent_message: dict[str, Any] | None


@dataclass
class TurnRun:
    """What one sampling loop needs; built by the session for each turn."""

    thread_id: str
    turn_id: str
    provider: ModelProvider
    sink: EventSink
    tools: ToolContext
    build_request: Callable[[], ModelRequest]
    record_history: Callable[[dict[str, Any]], None]
    on_usage: Callable[[TokenUsage], dict[str, Any]]
    stream_max_retries: int
    active_items: dict[str, dict[str, Any]] = field(default_factory=dict)

    def ids(self) -> dict[str, Any]:
        return {"threadId": self.thread_id, "turnId": self.turn_id}


async def sample_with_retries(run: TurnRun) -> SamplingResult:
    """One sampling request, retried on retryable failures with an `error` (willRetry) notice each time."""
    attempt = 0
    while True:
        try:
            return await sample_once(run)
        except ProviderError as exc:
            if not exc.retryable or attempt >= run.stream_max_retries:
                raise
            attempt += 1
            delay = retry_delay(attempt, exc.retry_after_s)
            error = items.turn_error(
                f"Reconnecting... {attempt}/{run.stream_max_retries}", exc.codex_error_info, exc.message
            )
            await run.sink.emit("error", {"error": error, "willRetry": True, **run.ids()})
            await asyncio.sleep(delay)


def _history_item(item: dict[str, Any]) -> dict[str, Any]:
    """Responses output item → history input item (ids are not sent back; store=false)."""
    out = {k: v for k, v in item.items() if k not in ("id", "status")}
    if out.get("type") == "reasoning":
        out.setdefault("encrypted_content", None)
        if not out.get("content"):
            out.pop("content", None)
    return out


async def _on_added(run: TurnRun, item: dict[str, Any]) -> None:
    kind = item.get("type")
    item_id = str(item.get("id") or "")
    if kind == "message" and item.get("role", "assistant") == "assistant":
        wire = items.agent_message(item_id, "", now_ms(), item.get("phase"))
    elif kind == "reasoning":
        wire = items.reasoning(item_id, now_ms())
    else:
        return
    run.active_items[item_id] = wire
    await run.sink.emit("item/started", {"item": dict(wire), **run.ids(), "startedAtMs": wire["startedAtMs"]})


def _message_text(item: dict[str, Any]) -> str:
    return "".join(
        str(part.get("text", "")) for part in item.get("content") or [] if part.get("type") == "output_text"
    )


async def _on_done(run: TurnRun, item: dict[str, Any]) -> dict[str, Any] | None:
    """Record a finished non-tool item and announce it; returns the agent message item if it was one."""
    kind = item.get("type")
    item_id = str(item.get("id") or "")
    run.record_history(_history_item(item))
    wire = run.active_items.pop(item_id, None)
    if kind == "message" and item.get("role", "assistant") == "assistant":
        if wire is None:
            wire = items.agent_message(item_id, "", now_ms(), item.get("phase"))
            await run.sink.emit(
                "item/started", {"item": dict(wire), **run.ids(), "startedAtMs": wire["startedAtMs"]}
            )
        wire["text"] = _message_text(item)
    elif kind == "reasoning":
        if wire is None:
            wire = items.reasoning(item_id, now_ms())
            await run.sink.emit(
                "item/started", {"item": dict(wire), **run.ids(), "startedAtMs": wire["startedAtMs"]}
            )
        wire["summary"] = [str(s.get("text", "")) for s in item.get("summary") or []]
        wire["content"] = [str(c.get("text", "")) for c in item.get("content") or []]
    else:
        return None
    wire["completedAtMs"] = now_ms()
    run.tools.record_item(wire)
    await run.sink.emit(
        "item/completed",
        {"item": wire, **run.ids(), "completedAtMs": wire["completedAtMs"], "contentTokenCount": None},
    )
    return wire if kind == "message" else None


def _on_delta(run: TurnRun, event: Any) -> None:
    ids = run.ids()
    if isinstance(event, OutputTextDelta):
        wire = run.active_items.get(event.item_id)
        if wire is not None:
            wire["text"] += event.delta
        run.sink.emit_transient(
            "item/agentMessage/delta", {**ids, "itemId": event.item_id, "delta": event.delta}
        )
    elif isinstance(event, ReasoningSummaryPartAdded):
        run.sink.emit_transient(
            "item/reasoning/summaryPartAdded",
            {**ids, "itemId": event.item_id, "summaryIndex": event.summary_index},
        )
    elif isinstance(event, ReasoningSummaryDelta):
        run.sink.emit_transient(
            "item/reasoning/summaryTextDelta",
            {**ids, "itemId": event.item_id, "delta": event.delta, "summaryIndex": event.summary_index},
        )
    elif isinstance(event, ReasoningTextDelta):
        run.sink.emit_transient(
            "item/reasoning/textDelta",
            {**ids, "itemId": event.item_id, "delta": event.delta, "contentIndex": event.content_index},
        )


class _ToolQueue:
    """Tool calls start as soon as their item is done; parallel-safe tools overlap, others run alone."""

    def __init__(self, run: TurnRun) -> None:
        self._run = run
        self.calls: list[tuple[dict[str, Any], asyncio.Task[dict[str, Any]]]] = []

    def start(self, call: dict[str, Any]) -> None:
        previous = [task for _, task in self.calls]
        parallel = call.get("name") in PARALLEL_TOOLS and call.get("type") == "function_call"
        exclusive_before = [t for (c, t) in self.calls if not self._is_parallel(c)]
        waits = exclusive_before if parallel else previous
        task = asyncio.create_task(self._after(waits, call))
        self.calls.append((call, task))

    @staticmethod
    def _is_parallel(call: dict[str, Any]) -> bool:
        return call.get("name") in PARALLEL_TOOLS and call.get("type") == "function_call"

    async def _after(self, waits: list[asyncio.Task[dict[str, Any]]], call: dict[str, Any]) -> dict[str, Any]:
        if waits:
            await asyncio.wait(waits)
        return await dispatch(self._run.tools, call)

    async def drain(self) -> None:
        """Record every output in call order."""
        for _call, task in self.calls:
            self._run.record_history(await task)

    def cancel(self) -> None:
        for _, task in self.calls:
            task.cancel()


async def sample_once(run: TurnRun) -> SamplingResult:
    request = run.build_request()
    queue = _ToolQueue(run)
    last_message: dict[str, Any] | None = None
    completed = False
    usage: TokenUsage | None = None
    try:
        async for event in run.provider.stream(request):
            if isinstance(event, OutputItemAdded):
                await _on_added(run, event.item)
            elif isinstance(event, OutputItemDone):
                if event.item.get("type") in TOOL_CALL_TYPES:
                    run.record_history(_history_item(event.item))
                    queue.start(event.item)
                else:
                    last_message = await _on_done(run, event.item) or last_message
            elif isinstance(event, Completed):
                completed, usage = True, event.usage
                break
            else:
                _on_delta(run, event)
        await queue.drain()
        # Codex reports a response's usage once its tool calls have finished.
        if usage is not None:
            await run.sink.emit("thread/tokenUsage/updated", {**run.ids(), "tokenUsage": run.on_usage(usage)})
    except BaseException:
        queue.cancel()
        raise
    if completed and run.tools.turn_files_before:
        await emit_turn_diff(run.tools)
    return SamplingResult(needs_follow_up=bool(queue.calls), last_agent_message=last_message)
