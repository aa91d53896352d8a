"""Turn decoded SSE events into `ModelEvent`s (sans-I/O; core.md §2.6)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from tether_server.errors import ProviderError
from tether_server.providers import errors
from tether_server.providers.base import (
    Completed,
    Created,
    ModelEvent,
    OutputItemAdded,
    OutputItemDone,
    OutputTextDelta,
    ReasoningSummaryDelta,
    ReasoningSummaryPartAdded,
    ReasoningTextDelta,
    TokenUsage,
    ToolCallInputDelta,
)
from tether_server.providers.sse import SseEvent


def parse_usage(usage: Any) -> TokenUsage | None:
    """`TokenUsage` from a Responses `usage` object; None when absent or malformed."""
    if not isinstance(usage, dict):
        return None
    input_details = usage.get("input_tokens_details") or {}
    output_details = usage.get("output_tokens_details") or {}
    try:
        return TokenUsage(
            input_tokens=int(usage.get("input_tokens") or 0),
            cached_input_tokens=int(input_details.get("cached_tokens") or 0),
            output_tokens=int(usage.get("output_tokens") or 0),
            reasoning_output_tokens=int(output_details.get("reasoning_tokens") or 0),
            total_tokens=int(usage.get("total_tokens") or 0),
        )
    except (TypeError, ValueError, AttributeError):
        return None


def _created(data: dict[str, Any]) -> ModelEvent | None:
    response = data.get("response")
    return Created(str(response.get("id") or "")) if isinstance(response, dict) else None


def _item_added(data: dict[str, Any]) -> ModelEvent | None:
    item = data.get("item")
    return OutputItemAdded(item) if isinstance(item, dict) else None


def _item_done(data: dict[str, Any]) -> ModelEvent | None:
    item = data.get("item")
    return OutputItemDone(item) if isinstance(item, dict) else None


def _text_delta(data: dict[str, Any]) -> ModelEvent | None:
    return OutputTextDelta(str(data.get("item_id") or ""), str(data.get("delta") or ""))


def _summary_delta(data: dict[str, Any]) -> ModelEvent | None:
    index = data.get("summary_index")
    if not isinstance(index, int) or "delta" not in data:
        return None
    return ReasoningSummaryDelta(str(data.get("item_id") or ""), index, str(data["delta"]))


def _summary_part(data: dict[str, Any]) -> ModelEvent | None:
    index = data.get("summary_index")
    if not isinstance(index, int):
        return None
    return ReasoningSummaryPartAdded(str(data.get("item_id") or ""), index)


def _reasoning_delta(data: dict[str, Any]) -> ModelEvent | None:
    index = data.get("content_index")
    if not isinstance(index, int) or "delta" not in data:
        return None
    return ReasoningTextDelta(str(data.get("item_id") or ""), index, str(data["delta"]))


def _tool_input_delta(data: dict[str, Any]) -> ModelEvent | None:
    call_id = data.get("call_id")
    item_id = data.get("item_id") or call_id or ""
    return ToolCallInputDelta(str(item_id), str(call_id) if call_id else None, str(data.get("delta") or ""))


_SIMPLE: dict[str, Callable[[dict[str, Any]], ModelEvent | None]] = {
    "response.created": _created,
    "response.output_item.added": _item_added,
    "response.output_item.done": _item_done,
    "response.output_text.delta": _text_delta,
    "response.reasoning_summary_text.delta": _summary_delta,
    "response.reasoning_summary_part.added": _summary_part,
    "response.reasoning_text.delta": _reasoning_delta,
    "response.custom_tool_call_input.delta": _tool_input_delta,
}


class ResponseStreamParser:
    """Consumes SSE events of one response; remembers failures until the stream ends.

    Dispatch is on the JSON `type` of the data (the SSE `event:` name is ignored) and
    unparseable data is skipped, as the real client does.
    """

    def __init__(self) -> None:
        self.completed = False
        self._failure: ProviderError | None = None

    def handle(self, sse: SseEvent) -> ModelEvent | None:
        """The `ModelEvent` for `sse`, or None if it carries nothing the core uses."""
        return self.handle_data(sse.data)

    def handle_data(self, raw: bytes | str) -> ModelEvent | None:
        """The `ModelEvent` for an event's data (`SseDecoder.feed_data`), or None."""
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            if not isinstance(raw, bytes):
                return None
            try:  # invalid UTF-8 inside: read as `feed` would have decoded it
                data = orjson.loads(raw.decode("utf-8", errors="replace"))
            except orjson.JSONDecodeError:
                return None
        if not isinstance(data, dict):
            return None
        kind = data.get("type")
        simple = _SIMPLE.get(kind) if isinstance(kind, str) else None
        if simple is not None:
            return simple(data)
        if kind == "response.completed":
            return self._completed(data)
        if kind == "response.failed":
            self._failed(data)
        elif kind == "response.incomplete":
            self._incomplete(data)
        return None

    def end_error(self) -> ProviderError:
        """The error to raise when the stream ended without `response.completed`."""
        return self._failure or errors.stream_disconnected(errors.EARLY_CLOSE_MESSAGE)

    def _completed(self, data: dict[str, Any]) -> ModelEvent:
        self.completed = True
        response = data.get("response")
        if not isinstance(response, dict):
            response = {}
        return Completed(str(response.get("id") or ""), parse_usage(response.get("usage")))

    def _failed(self, data: dict[str, Any]) -> None:
        response = data.get("response")
        error = response.get("error") if isinstance(response, dict) else None
        if isinstance(error, dict):
            self._failure = errors.from_response_failed(error)
        else:
            self._failure = errors.stream_disconnected("response.failed event received")

    def _incomplete(self, data: dict[str, Any]) -> None:
        response = data.get("response")
        details = response.get("incomplete_details") if isinstance(response, dict) else None
        reason = details.get("reason") if isinstance(details, dict) else None
        self._failure = errors.stream_disconnected(
            f"Incomplete response returned, reason: {reason or 'unknown'}"
        )
