"""The stream parser maps Responses SSE events to model events (sans-I/O)."""

from __future__ import annotations

import orjson

from tether_server.providers.base import (
    Completed,
    Created,
    OutputTextDelta,
    ReasoningSummaryDelta,
    TokenUsage,
)
from tether_server.providers.events import ResponseStreamParser
from tether_server.providers.sse import SseEvent


def sse(payload: dict[str, object], name: str = "ignored") -> SseEvent:
    return SseEvent(name, orjson.dumps(payload).decode())


def test_dispatch_uses_the_json_type_not_the_sse_event_name() -> None:
    parser = ResponseStreamParser()

    event = parser.handle(sse({"type": "response.created", "response": {"id": "r1"}}, name="bogus"))

    assert event == Created("r1")


def test_unparseable_and_unknown_events_are_skipped() -> None:
    parser = ResponseStreamParser()

    assert parser.handle(SseEvent("message", "not json")) is None
    assert parser.handle(sse({"type": "response.in_progress"})) is None
    assert parser.handle(sse({"type": "response.reasoning_summary_text.delta", "delta": "x"})) is None


def test_deltas_carry_item_and_index() -> None:
    parser = ResponseStreamParser()

    text = parser.handle(sse({"type": "response.output_text.delta", "item_id": "m", "delta": "hi"}))
    summary = parser.handle(
        sse(
            {
                "type": "response.reasoning_summary_text.delta",
                "item_id": "r",
                "summary_index": 1,
                "delta": "s",
            }
        )
    )

    assert text == OutputTextDelta("m", "hi")
    assert summary == ReasoningSummaryDelta("r", 1, "s")


def test_completed_reports_usage_with_cached_and_reasoning_details() -> None:
    parser = ResponseStreamParser()
    usage = {
        "input_tokens": 100,
        "input_tokens_details": {"cached_tokens": 40},
        "output_tokens": 30,
        "output_tokens_details": {"reasoning_tokens": 10},
        "total_tokens": 130,
    }

    event = parser.handle(sse({"type": "response.completed", "response": {"id": "r", "usage": usage}}))

    assert event == Completed("r", TokenUsage(100, 40, 30, 10, 130))
    assert parser.completed


def test_failure_is_remembered_and_reported_when_the_stream_ends() -> None:
    parser = ResponseStreamParser()
    error = {"code": "context_length_exceeded", "message": "too long"}

    assert parser.handle(sse({"type": "response.failed", "response": {"error": error}})) is None

    assert parser.end_error().codex_error_info == "contextWindowExceeded"


def test_stream_ending_without_completion_or_failure_is_a_retryable_disconnect() -> None:
    failure = ResponseStreamParser().end_error()

    assert failure.retryable
    assert failure.message == "stream closed before response.completed"
    assert failure.codex_error_info == {"responseStreamDisconnected": {"httpStatusCode": None}}
