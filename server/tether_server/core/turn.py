"""One turn: sample the model, run its tool calls, repeat until it answers without calling tools."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, assert_never

from tether_server import log, metrics, telemetry
from tether_server.core import events as ev
from tether_server.core import items, web_search
from tether_server.core.ids import now_ms
from tether_server.core.item_ids import OutputItemIds
from tether_server.core.ports import EventSink
from tether_server.core.proposed_plan import ProposedPlan
from tether_server.core.tool_calls import emit_turn_diff
from tether_server.core.toolbox import CONTEXT_BEFORE, ToolContext, dispatch
from tether_server.core.usage import UsageTracker
from tether_server.errors import ProviderError
from tether_server.providers.base import (
    Completed,
    Created,
    ModelEvent,
    ModelProvider,
    ModelRequest,
    OutputItemAdded,
    OutputItemDone,
    OutputTextDelta,
    ReasoningSummaryDelta,
    ReasoningSummaryPartAdded,
    ReasoningTextDelta,
    TokenUsage,
    ToolCallInputDelta,
)
from tether_server.providers.retry import retry_delay

_log = log.get("tether.core.turn")

TOOL_CALL_TYPES = frozenset({"function_call", "custom_tool_call", "tool_search_call"})


_Streaming = items.AgentMessage | items.Reasoning | items.WebSearch


@dataclass
class SamplingResult:
    needs_follow_up: bool
    last_agent_message: items.AgentMessage | None


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
    usage: UsageTracker
    stream_max_retries: int
    active_items: dict[str, _Streaming] = field(default_factory=dict)
    streamed_text: dict[str, list[str]] = field(default_factory=dict)
    """The deltas of each agent message in `active_items`."""
    steered: asyncio.Event | None = None
    """Set when the user steers: the response being streamed is cut short for the next request."""
    plan: ProposedPlan | None = None
    """Plan mode: splits the `<proposed_plan>` block out of the assistant's text."""

    async def started(self, item: items.ThreadItem) -> None:
        await self.sink.emit(ev.ItemStarted(self.thread_id, self.turn_id, item))


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
            await run.sink.emit(ev.TurnFailed(run.thread_id, run.turn_id, error, will_retry=True))
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
    started: _Streaming
    if kind == "message" and item.get("role", "assistant") == "assistant":
        started = items.AgentMessage(item_id, "", now_ms(), item.get("phase"))
    elif kind == "reasoning":
        started = items.Reasoning(item_id, now_ms())
    elif kind == web_search.CALL_TYPE:
        started = web_search.started_item(item)
    else:
        return
    run.active_items[item_id] = started
    if isinstance(started, items.AgentMessage):
        run.streamed_text[item_id] = []
    await run.started(started)


def _message_text(item: dict[str, Any]) -> str:
    return "".join(
        str(part.get("text", "")) for part in item.get("content") or [] if part.get("type") == "output_text"
    )


async def _on_done(run: TurnRun, item: dict[str, Any]) -> items.AgentMessage | None:
    """Record a finished non-tool item and announce it; returns the agent message item if it was one."""
    kind = item.get("type")
    item_id = str(item.get("id") or "")
    run.record_history(_history_item(item))
    known = run.active_items.pop(item_id, None)
    run.streamed_text.pop(item_id, None)
    done: _Streaming
    if kind == "message" and item.get("role", "assistant") == "assistant":
        message = known if isinstance(known, items.AgentMessage) else None
        if message is None:
            message = items.AgentMessage(item_id, "", now_ms(), item.get("phase"))
            await run.started(message)
        message.text = _message_text(item)
        if run.plan is not None:
            message.text = await run.plan.finish(run.sink, run.tools.record_item, item_id, message.text)
        done = message
    elif kind == "reasoning":
        reasoning = known if isinstance(known, items.Reasoning) else None
        if reasoning is None:
            reasoning = items.Reasoning(item_id, now_ms())
            await run.started(reasoning)
        reasoning.summary = [str(s.get("text", "")) for s in item.get("summary") or []]
        reasoning.content = [str(c.get("text", "")) for c in item.get("content") or []]
        done = reasoning
    elif kind == web_search.CALL_TYPE:
        search = known if isinstance(known, items.WebSearch) else None
        if search is None:
            search = web_search.started_item(item)
            await run.started(search)
        done = web_search.finish(search, item)
    else:
        return None
    done.completed_at_ms = now_ms()
    run.tools.record_item(done)
    await run.sink.emit(ev.ItemCompleted(run.thread_id, run.turn_id, done))
    return done if isinstance(done, items.AgentMessage) else None


def _on_text_deltas(run: TurnRun, events: list[OutputTextDelta]) -> None:
    # The text so far is kept as parts, joined only if the response is cut (the done item
    # carries the whole text): appending to a str attribute copies it, quadratic in a long answer.
    streamed, thread_id, turn_id = run.streamed_text, run.thread_id, run.turn_id
    deltas: list[ev.CoreEvent] = []
    for event in events:
        parts = streamed.get(event.item_id)
        if parts is not None:
            parts.append(event.delta)
        deltas.append(ev.AgentMessageDelta(thread_id, turn_id, event.item_id, event.delta))
    run.sink.emit_deltas(deltas)


async def _texts(run: TurnRun, events: list[OutputTextDelta]) -> None:
    if run.plan is None:
        _on_text_deltas(run, events)
    else:
        await run.plan.on_deltas(run.sink, events, run.streamed_text)


class _ToolQueue:
    """Tool calls start as soon as their item is done; parallel-safe tools overlap, others run alone."""

    def __init__(self, run: TurnRun) -> None:
        self._run = run
        self.calls: list[tuple[dict[str, Any], asyncio.Task[dict[str, Any]]]] = []

    def start(self, call: dict[str, Any]) -> None:
        previous = [task for _, task in self.calls]
        parallel = self._is_parallel(call)
        exclusive_before = [t for (c, t) in self.calls if not self._is_parallel(c)]
        waits = exclusive_before if parallel else previous
        task = asyncio.create_task(self._after(waits, call))
        self.calls.append((call, task))

    def _is_parallel(self, call: dict[str, Any]) -> bool:
        return self._run.tools.registry.parallel(call)

    async def _after(self, waits: list[asyncio.Task[dict[str, Any]]], call: dict[str, Any]) -> dict[str, Any]:
        if waits:
            await asyncio.wait(waits)
        return await dispatch(self._run.tools, call)

    async def drain(self) -> None:
        """Record every output in call order."""
        for _call, task in self.calls:
            output = await task
            for entry in [*output.pop(CONTEXT_BEFORE, ()), output]:  # hooks' context, then the output
                self._run.record_history(entry)

    def cancel(self) -> None:
        for _, task in self.calls:
            task.cancel()


class _Response:
    """One streamed response, handled event by event; cut short when the user steers: at once
    while waiting on the model, else right after the event being handled (never halfway through
    recording it)."""

    def __init__(self, run: TurnRun) -> None:
        self.run = run
        self.queue = _ToolQueue(run)
        self.ids = OutputItemIds()
        self.last_message: items.AgentMessage | None = None
        self.completed = False
        self.usage: TokenUsage | None = None
        self.cut = False
        self.waiting = False

    async def read(self, request: ModelRequest) -> None:
        stream = aiter(self.run.provider.stream_batches(request))
        run = self.run
        try:
            while not self.cut and not self.completed:
                self.waiting = True
                try:
                    batch = await anext(stream)
                except StopAsyncIteration:
                    return
                finally:
                    self.waiting = False
                # Text deltas are most of a response: each run of them is handled inline, without
                # a coroutine, and fanned out together.
                texts: list[OutputTextDelta] = []
                for event in self.ids.rename(batch):
                    if type(event) is OutputTextDelta:
                        texts.append(event)
                        continue
                    if texts:
                        await _texts(run, texts)
                        texts = []
                    await self._handle(event)
                    if self.cut or self.completed:
                        break
                if texts:
                    await _texts(run, texts)
        finally:
            close = getattr(stream, "aclose", None)
            if close is not None:
                await close()

    async def _handle(self, event: ModelEvent) -> None:
        # Every event type is named here (assert_never): a new one fails mypy until it is handled.
        run = self.run
        tid, turn_id = run.thread_id, run.turn_id
        match event:
            case OutputItemAdded():
                await _on_added(run, event.item)
            case OutputItemDone():
                if event.item.get("type") in TOOL_CALL_TYPES:
                    run.record_history(_history_item(event.item))
                    self.queue.start(event.item)
                else:
                    self.last_message = await _on_done(run, event.item) or self.last_message
            case Completed():
                self.completed, self.usage = True, event.usage
            case OutputTextDelta():
                await _texts(run, [event])
            case ReasoningSummaryPartAdded():
                run.sink.emit_delta(
                    ev.ReasoningSummaryPartAdded(tid, turn_id, event.item_id, event.summary_index)
                )
            case ReasoningSummaryDelta():
                run.sink.emit_delta(
                    ev.ReasoningSummaryDelta(tid, turn_id, event.item_id, event.delta, event.summary_index)
                )
            case ReasoningTextDelta():
                run.sink.emit_delta(
                    ev.ReasoningTextDelta(tid, turn_id, event.item_id, event.delta, event.content_index)
                )
            case Created() | ToolCallInputDelta():
                # The response id is not kept, and a freeform call's input is shown whole when
                # its item is done.
                pass
            case _:
                assert_never(event)

    async def watch_steer(self, reader: asyncio.Task[None]) -> None:
        if self.run.steered is None:
            return
        await self.run.steered.wait()
        self.cut = True
        if self.waiting:
            reader.cancel()

    @property
    def was_cut(self) -> bool:
        return self.cut and not self.completed


async def _finish_cut(run: TurnRun) -> items.AgentMessage | None:
    """Complete the items the cut response left open; a partial answer stays in the history."""
    last: items.AgentMessage | None = None
    for item in list(run.active_items.values()):
        if isinstance(item, items.AgentMessage):
            item.text += "".join(run.streamed_text.get(item.id, ()))
            if item.text:
                content = [{"type": "output_text", "text": item.text}]
                run.record_history({"type": "message", "role": "assistant", "content": content})
            if run.plan is not None:
                item.text = await run.plan.finish(run.sink, run.tools.record_item, item.id, item.text)
            last = item
        item.completed_at_ms = now_ms()
        run.tools.record_item(item)
        await run.sink.emit(ev.ItemCompleted(run.thread_id, run.turn_id, item))
    run.active_items.clear()
    run.streamed_text.clear()
    return last


async def _read_until_done_or_cut(response: _Response, request: ModelRequest) -> None:
    reader = asyncio.create_task(response.read(request))
    watcher = asyncio.create_task(response.watch_steer(reader))
    try:
        await reader
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if not response.cut or (current is not None and current.cancelling()):
            reader.cancel()
            raise
    finally:
        watcher.cancel()


def _record_usage(span: telemetry.Span, call: metrics.ModelCall, usage: TokenUsage | None) -> None:
    if usage is None:
        return
    call.usage(
        input=usage.input_tokens,
        cached_input=usage.cached_input_tokens,
        output=usage.output_tokens,
        reasoning_output=usage.reasoning_output_tokens,
    )
    span.set(
        {"gen_ai.usage.input_tokens": usage.input_tokens, "gen_ai.usage.output_tokens": usage.output_tokens}
    )


async def sample_once(run: TurnRun) -> SamplingResult:
    request = run.build_request()
    response = _Response(run)
    try:
        # Not the current span: tool calls started during the stream belong to the turn.
        with (
            telemetry.span("model.request", {"gen_ai.request.model": request.model}, current=False) as span,
            metrics.model_request(request.model) as call,
        ):
            await _read_until_done_or_cut(response, request)
            if response.completed:
                call.outcome = "ok"
                _record_usage(span, call, response.usage)
            elif response.was_cut:
                call.outcome = "steered"
        if response.was_cut:
            response.last_message = await _finish_cut(run) or response.last_message
        await response.queue.drain()
        # Codex reports a response's usage once its tool calls have finished.
        if response.usage is not None:
            run.usage.add(response.usage)
            tracker = run.usage
            await run.sink.emit(
                ev.TokenUsageUpdated(
                    run.thread_id, run.turn_id, tracker.total, tracker.last, tracker.context_window
                )
            )
    except BaseException:
        response.queue.cancel()
        raise
    if response.completed and run.tools.turn_files_before:
        await emit_turn_diff(run.tools)
    needs_follow_up = bool(response.queue.calls) or response.was_cut
    return SamplingResult(needs_follow_up=needs_follow_up, last_agent_message=response.last_message)
