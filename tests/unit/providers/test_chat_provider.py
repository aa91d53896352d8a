"""The Chat Completions provider against the chat fake on loopback: request body and stream events."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from tether_server.core.tool_calls import BUILTIN_TOOLS
from tether_server.core.web_search import tool_spec
from tether_server.errors import ProviderError
from tether_server.providers.base import (
    Completed,
    Created,
    ModelEvent,
    ModelRequest,
    OutputItemAdded,
    OutputItemDone,
    OutputTextDelta,
    ProviderSettings,
    ReasoningTextDelta,
    TokenUsage,
)
from tether_server.providers.chat import ChatProvider
from tether_testing import (
    FakeChatServer,
    chat_reasoning,
    chat_reply,
    chat_text,
    chat_text_reply,
    chat_think,
    chat_tool_call,
    chat_usage,
    gated,
    http_error,
)


def provider(fake: FakeChatServer, client: httpx.AsyncClient) -> ChatProvider:
    return ChatProvider(ProviderSettings("local", fake.base_url, stream_idle_timeout_s=5.0), client)


async def collect(chat: ChatProvider, request: ModelRequest) -> list[ModelEvent]:
    async with asyncio.timeout(10):
        return [event async for event in chat.stream(request)]


def done_items(events: list[ModelEvent]) -> list[dict[str, Any]]:
    return [event.item for event in events if isinstance(event, OutputItemDone)]


def request(**overrides: Any) -> ModelRequest:
    values: dict[str, Any] = {
        "model": "qwen3:8b",
        "instructions": "You are a coding agent.",
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}],
    }
    values.update(overrides)
    return ModelRequest(**values)


async def test_text_streams_as_one_message_with_usage(http_client: httpx.AsyncClient) -> None:
    script = [chat_reply(chat_text("Hello there", deltas=4), usage=chat_usage(12, 3))]
    async with FakeChatServer(script) as fake:
        events = await collect(provider(fake, http_client), request())
        sent = fake.requests[0]

    assert sent.path == "/v1/chat/completions"
    assert sent.body["stream"] is True
    assert sent.body["stream_options"] == {"include_usage": True}
    assert sent.body["messages"][0] == {"role": "system", "content": "You are a coding agent."}
    assert sent.body["messages"][1] == {"role": "user", "content": "hi"}
    assert isinstance(events[0], Created)
    assert "".join(e.delta for e in events if isinstance(e, OutputTextDelta)) == "Hello there"
    [message] = done_items(events)
    assert message["content"][0]["text"] == "Hello there"
    last = events[-1]
    assert isinstance(last, Completed)
    assert last.usage == TokenUsage(input_tokens=12, output_tokens=3, total_tokens=15)


async def test_parallel_tool_calls_are_assembled_by_index_across_chunks(
    http_client: httpx.AsyncClient,
) -> None:
    calls = [
        chat_tool_call("shell_command", {"command": "ls -la"}, "call_a", pieces=4),
        chat_tool_call("shell_command", {"command": "pwd"}, "call_b", pieces=3),
    ]
    async with FakeChatServer([chat_reply(chat_text("Looking."), *calls, interleave_calls=True)]) as fake:
        events = await collect(provider(fake, http_client), request())

    message, first, second = done_items(events)
    assert message["type"] == "message"
    assert (first["call_id"], first["name"], first["arguments"]) == (
        "call_a",
        "shell_command",
        '{"command":"ls -la"}',
    )
    assert (second["call_id"], second["arguments"]) == ("call_b", '{"command":"pwd"}')
    assert {first["type"], second["type"]} == {"function_call"}


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_reasoning_fields_become_a_reasoning_item(http_client: httpx.AsyncClient, field: str) -> None:
    script = [chat_reply(chat_reasoning("The user greets me.", field=field), chat_text("Hi!"))]
    async with FakeChatServer(script) as fake:
        events = await collect(provider(fake, http_client), request())

    added = [e.item["type"] for e in events if isinstance(e, OutputItemAdded)]
    assert added == ["reasoning", "message"]
    assert "".join(e.delta for e in events if isinstance(e, ReasoningTextDelta)) == "The user greets me."
    reasoning, message = done_items(events)
    assert reasoning["content"] == [{"type": "reasoning_text", "text": "The user greets me."}]
    assert message["content"][0]["text"] == "Hi!"


async def test_a_think_block_in_the_content_is_reasoning_even_when_its_tags_are_cut(
    http_client: httpx.AsyncClient,
) -> None:
    # Seven pieces cut both tags in two.
    async with FakeChatServer([chat_reply(chat_think("Plan: greet.", deltas=7), chat_text("Hi!"))]) as fake:
        events = await collect(provider(fake, http_client), request())

    reasoning, message = done_items(events)
    assert reasoning["content"][0]["text"] == "Plan: greet."
    assert message["content"][0]["text"] == "Hi!"
    assert "".join(e.delta for e in events if isinstance(e, OutputTextDelta)) == "Hi!"


async def test_tools_offered_are_the_callable_ones_and_apply_patch_takes_one_input_string(
    http_client: httpx.AsyncClient,
) -> None:
    specs = [tool.spec for tool in BUILTIN_TOOLS if tool.spec is not None]
    web = tool_spec("live")
    assert web is not None
    async with FakeChatServer([chat_text_reply("ok")]) as fake:
        await collect(provider(fake, http_client), request(tools=[*specs, web], parallel_tool_calls=True))
        body = fake.requests[0].body

    names = [tool["function"]["name"] for tool in body["tools"]]
    assert "web_search" not in names and len(names) == len(specs)
    assert {tool["type"] for tool in body["tools"]} == {"function"}
    patch = next(tool["function"] for tool in body["tools"] if tool["function"]["name"] == "apply_patch")
    assert patch["parameters"]["required"] == ["input"]
    assert patch["parameters"]["properties"]["input"]["type"] == "string"
    assert body["parallel_tool_calls"] is True


async def test_history_calls_and_outputs_become_assistant_tool_calls_and_tool_messages(
    http_client: httpx.AsyncClient,
) -> None:
    history = [
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "Sandbox: on."}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix it"}]},
        {"type": "reasoning", "summary": [], "encrypted_content": "gAAA"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Sure."}]},
        {"type": "function_call", "call_id": "c1", "name": "shell_command", "arguments": '{"command":"ls"}'},
        {"type": "custom_tool_call", "call_id": "c2", "name": "apply_patch", "input": "*** Begin Patch"},
        {"type": "function_call_output", "call_id": "c1", "output": "a.py"},
        {"type": "custom_tool_call_output", "call_id": "c2", "output": "Done!"},
        {"type": "web_search_call", "action": {"type": "search", "query": "x"}},
    ]
    async with FakeChatServer([chat_text_reply("ok")]) as fake:
        await collect(provider(fake, http_client), request(input=history))
        messages = fake.requests[0].body["messages"]

    assert messages[0] == {"role": "system", "content": "You are a coding agent.\n\nSandbox: on."}
    assert messages[1] == {"role": "user", "content": "fix it"}
    assistant = messages[2]
    assert (assistant["role"], assistant["content"]) == ("assistant", "Sure.")
    assert [call["id"] for call in assistant["tool_calls"]] == ["c1", "c2"]
    assert assistant["tool_calls"][1]["function"]["arguments"] == '{"input":"*** Begin Patch"}'
    assert messages[3:] == [
        {"role": "tool", "tool_call_id": "c1", "content": "a.py"},
        {"role": "tool", "tool_call_id": "c2", "content": "Done!"},
    ]


async def test_a_429_carries_its_retry_after_and_is_retryable(http_client: httpx.AsyncClient) -> None:
    async with FakeChatServer([http_error(429, retry_after=0.25)]) as fake:
        with pytest.raises(ProviderError) as caught:
            await collect(provider(fake, http_client), request())

    assert caught.value.retryable and caught.value.retry_after_s == 0.25
    assert caught.value.codex_error_info == "rateLimitExceeded"


async def test_a_context_overflow_in_a_local_servers_words_is_not_retried(
    http_client: httpx.AsyncClient,
) -> None:
    # llama.cpp's answer to a prompt longer than its context (tools/server/server.cpp,
    # ERROR_TYPE_EXCEED_CONTEXT_SIZE).
    body = {
        "error": {
            "code": 400,
            "message": "the request exceeds the available context size, try increasing it",
            "type": "exceed_context_size_error",
            "n_prompt_tokens": 9000,
            "n_ctx": 4096,
        }
    }
    async with FakeChatServer([http_error(400, body)]) as fake:
        with pytest.raises(ProviderError) as caught:
            await collect(provider(fake, http_client), request())

    assert caught.value.codex_error_info == "contextWindowExceeded"
    assert not caught.value.retryable


async def test_a_stream_cut_before_it_finished_is_a_retryable_disconnect(
    http_client: httpx.AsyncClient,
) -> None:
    reply = chat_reply(chat_text("Half an answer"))
    reply["steps"] = [*reply["steps"][:3], {"disconnect": True}]
    async with FakeChatServer([reply]) as fake:
        with pytest.raises(ProviderError) as caught:
            await collect(provider(fake, http_client), request())

    assert caught.value.retryable
    assert caught.value.codex_error_info == {"responseStreamDisconnected": {"httpStatusCode": None}}


async def test_no_server_answering_names_the_url(http_client: httpx.AsyncClient) -> None:
    async with FakeChatServer([]) as fake:
        url = fake.base_url  # the port is free again once the fake has stopped
    chat = ChatProvider(ProviderSettings("ollama", url), http_client)

    with pytest.raises(ProviderError) as caught:
        await collect(chat, request())

    assert f"no model server answers at {url}" in caught.value.message
    assert caught.value.retryable


async def test_closing_the_stream_mid_answer_ends_it_without_waiting(http_client: httpx.AsyncClient) -> None:
    async with FakeChatServer([chat_reply(chat_text("first"), gated("hold"), chat_text("second"))]) as fake:
        batches = provider(fake, http_client).stream_batches(request())
        seen: list[ModelEvent] = []
        async with asyncio.timeout(5):
            while not any(isinstance(event, OutputTextDelta) for event in seen):
                seen.extend(await anext(batches))
            await batches.aclose()

    assert not any(isinstance(event, Completed) for event in seen)
