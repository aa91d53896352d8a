"""The Responses provider against the real fake server on loopback: happy paths."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from tether_server.providers.base import (
    Completed,
    Created,
    ModelEvent,
    ModelProvider,
    ModelRequest,
    OutputItemAdded,
    OutputItemDone,
    OutputTextDelta,
    ProviderSettings,
    ReasoningSummaryDelta,
    ReasoningSummaryPartAdded,
    ReasoningTextDelta,
    TokenUsage,
    ToolCallInputDelta,
)
from tether_server.providers.responses import ResponsesProvider
from tether_testing import (
    FakeResponsesServer,
    custom_tool_call,
    function_call,
    gated,
    message,
    reasoning,
    reply,
    text_reply,
    usage,
)

API_KEY = "sk-test-secret-key-0123456789"
Factory = Callable[..., ResponsesProvider]


async def collect(provider: ResponsesProvider, req: ModelRequest) -> list[ModelEvent]:
    async with asyncio.timeout(10):
        return [event async for event in provider.stream(req)]


async def test_streamed_text_arrives_as_deltas_then_the_complete_message(
    make_provider: Factory, model_request: ModelRequest
) -> None:
    async with FakeResponsesServer([text_reply("Hello there", deltas=5, msg_id="msg_1")]) as fake:
        events = await collect(make_provider(fake.base_url), model_request)

    assert isinstance(events[0], Created)
    added = events[1]
    assert isinstance(added, OutputItemAdded)
    assert (added.item["type"], added.item["id"]) == ("message", "msg_1")
    deltas = [event for event in events if isinstance(event, OutputTextDelta)]
    assert len(deltas) == 5
    assert "".join(delta.delta for delta in deltas) == "Hello there"
    assert {delta.item_id for delta in deltas} == {"msg_1"}
    done = events[-2]
    assert isinstance(done, OutputItemDone)
    assert done.item["content"] == [{"type": "output_text", "text": "Hello there", "annotations": []}]
    assert isinstance(events[-1], Completed)


async def test_function_call_arrives_as_a_done_item_with_json_arguments(
    make_provider: Factory, model_request: ModelRequest
) -> None:
    script = [reply(function_call("exec_command", {"cmd": "ls -la"}, "call_7"))]
    async with FakeResponsesServer(script) as fake:
        events = await collect(make_provider(fake.base_url), model_request)

    done = [event.item for event in events if isinstance(event, OutputItemDone)]
    assert done == [
        {
            "type": "function_call",
            "id": done[0]["id"],
            "status": "completed",
            "call_id": "call_7",
            "name": "exec_command",
            "arguments": '{"cmd":"ls -la"}',
        }
    ]


async def test_reasoning_streams_summary_parts_raw_text_and_keeps_encrypted_content(
    make_provider: Factory,
    model_request: ModelRequest,
) -> None:
    item = reasoning(["Plan", "Check"], content=["raw"], encrypted_content="enc-blob", item_id="rs_1")
    async with FakeResponsesServer([reply(item, message("ok"))]) as fake:
        events = await collect(make_provider(fake.base_url), model_request)

    parts = [event for event in events if isinstance(event, ReasoningSummaryPartAdded)]
    assert parts == [ReasoningSummaryPartAdded("rs_1", 0), ReasoningSummaryPartAdded("rs_1", 1)]
    summary = [event for event in events if isinstance(event, ReasoningSummaryDelta)]
    assert "".join(d.delta for d in summary if d.summary_index == 1) == "Check"
    raw = [event for event in events if isinstance(event, ReasoningTextDelta)]
    assert "".join(d.delta for d in raw) == "raw"
    done = next(event.item for event in events if isinstance(event, OutputItemDone))
    assert done["encrypted_content"] == "enc-blob"
    assert done["summary"] == [
        {"type": "summary_text", "text": "Plan"},
        {"type": "summary_text", "text": "Check"},
    ]


async def test_custom_tool_call_streams_its_input(
    make_provider: Factory, model_request: ModelRequest
) -> None:
    patch = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch"
    async with FakeResponsesServer([reply(custom_tool_call("apply_patch", patch, "call_p"))]) as fake:
        events = await collect(make_provider(fake.base_url), model_request)

    deltas = [event for event in events if isinstance(event, ToolCallInputDelta)]
    assert "".join(d.delta for d in deltas) == patch
    assert {d.call_id for d in deltas} == {"call_p"}
    done = next(event.item for event in events if isinstance(event, OutputItemDone))
    assert (done["type"], done["input"]) == ("custom_tool_call", patch)


async def test_completion_reports_scripted_token_usage(
    make_provider: Factory, model_request: ModelRequest
) -> None:
    counts = usage(1200, 80, cached_input_tokens=1024, reasoning_output_tokens=30)
    async with FakeResponsesServer([text_reply("hi", usage=counts)]) as fake:
        events = await collect(make_provider(fake.base_url), model_request)

    completed = events[-1]
    assert isinstance(completed, Completed)
    assert completed.usage == TokenUsage(1200, 1024, 80, 30, 1280)


async def test_default_usage_is_plausible(make_provider: Factory, model_request: ModelRequest) -> None:
    async with FakeResponsesServer([text_reply("a longer answer of some words")]) as fake:
        events = await collect(make_provider(fake.base_url), model_request)

    completed = events[-1]
    assert isinstance(completed, Completed) and completed.usage is not None
    assert completed.usage.input_tokens > 0 and completed.usage.output_tokens > 0
    assert completed.usage.total_tokens == completed.usage.input_tokens + completed.usage.output_tokens


async def test_cancelling_the_consumer_mid_stream_closes_the_request(
    make_provider: Factory, model_request: ModelRequest
) -> None:
    script = [reply(message("partial"), gated("hold"), message("never")), text_reply("next")]
    async with FakeResponsesServer(script) as fake:
        provider = make_provider(fake.base_url)
        first = asyncio.create_task(collect(provider, model_request))
        await fake.wait_for_gate("hold")
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first
        events = await collect(provider, model_request)

    assert isinstance(events[-1], Completed)
    assert len(fake.requests) == 2


async def test_request_carries_body_auth_headers_and_query(
    make_provider: Factory, model_request: ModelRequest
) -> None:
    req = model_request
    async with FakeResponsesServer([text_reply("hi")]) as fake:
        await collect(make_provider(fake.base_url), req)
        recorded = await fake.wait_for_request(1)

    assert recorded.path == "/v1/responses"
    assert recorded.query == "api-version=2025-01-01"
    assert recorded.header("authorization") == f"Bearer {API_KEY}"
    assert recorded.header("accept") == "text/event-stream"
    assert recorded.header("session_id") == "thread-123"
    assert recorded.header("version") == "0.1.0"
    assert recorded.body == req.body()
    assert recorded.body["stream"] is True
    assert recorded.body["store"] is False
    assert recorded.body["prompt_cache_key"] == "thread-123"


async def test_no_authorization_header_without_an_api_key(
    make_provider: Factory, model_request: ModelRequest
) -> None:
    async with FakeResponsesServer([text_reply("hi")]) as fake:
        await collect(make_provider(fake.base_url, api_key=None), model_request)

    assert fake.requests[0].header("authorization") is None


async def test_provider_owning_its_client_streams_and_closes(model_request: ModelRequest) -> None:
    async with (
        FakeResponsesServer([text_reply("own client")]) as fake,
        ResponsesProvider(ProviderSettings("own", fake.base_url)) as provider,
    ):
        as_protocol: ModelProvider = provider
        events = [event async for event in as_protocol.stream(model_request)]

    assert isinstance(events[-1], Completed)
