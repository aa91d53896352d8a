"""Streams in the shapes real Chat Completions servers send, replayed through the chat provider.

Each stream is written out chunk by chunk as the server's documentation (cited above each) shows
it, and served on loopback by the chat fake as raw `data:` lines: the fields each server adds
(`system_fingerprint`, `timings`, `stop_reason`, `logprobs`) ride along unread.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from tether_server.providers.base import (
    Completed,
    ModelEvent,
    ModelRequest,
    OutputItemDone,
    OutputTextDelta,
    ProviderSettings,
    ReasoningTextDelta,
    TokenUsage,
)
from tether_server.providers.chat import ChatProvider
from tether_testing import FakeChatServer, chat_stream

DONE = "[DONE]"


def chunk(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish, **extra}]
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": choices,
    }


async def replay(*data: str | dict[str, Any]) -> list[ModelEvent]:
    request = ModelRequest(model="m", instructions="", input=[])
    async with (
        FakeChatServer([chat_stream(*data)]) as fake,
        httpx.AsyncClient(trust_env=False) as client,
        asyncio.timeout(10),
    ):
        provider = ChatProvider(ProviderSettings("local", fake.base_url, stream_idle_timeout_s=5.0), client)
        return [event async for event in provider.stream(request)]


def items(events: list[ModelEvent]) -> list[dict[str, Any]]:
    return [event.item for event in events if isinstance(event, OutputItemDone)]


def text(events: list[ModelEvent]) -> str:
    return "".join(e.delta for e in events if isinstance(e, OutputTextDelta))


def reasoning(events: list[ModelEvent]) -> str:
    return "".join(e.delta for e in events if isinstance(e, ReasoningTextDelta))


def usage(events: list[ModelEvent]) -> TokenUsage | None:
    last = events[-1]
    assert isinstance(last, Completed)
    return last.usage


async def test_ollama_reasoning_field_then_content_then_usage() -> None:
    # Ollama's OpenAI compatibility (https://docs.ollama.com/api/openai-compatibility; source:
    # openai/openai.go): a thinking model's thoughts stream in `delta.reasoning`, every chunk
    # carries `system_fingerprint: fp_ollama`, and `stream_options.include_usage` adds a last
    # chunk with no choices and the usage.
    fp = {"system_fingerprint": "fp_ollama"}
    events = await replay(
        {**chunk({"role": "assistant", "content": "", "reasoning": "The user"}), **fp},
        {**chunk({"role": "assistant", "content": "", "reasoning": " says hi."}), **fp},
        {**chunk({"role": "assistant", "content": "Hello"}), **fp},
        {**chunk({"role": "assistant", "content": "!"}), **fp},
        {**chunk({"role": "assistant", "content": ""}, "stop"), **fp},
        {**chunk(None), **fp, "usage": {"prompt_tokens": 11, "completion_tokens": 9, "total_tokens": 20}},
        DONE,
    )

    assert reasoning(events) == "The user says hi." and text(events) == "Hello!"
    assert [item["type"] for item in items(events)] == ["reasoning", "message"]
    assert usage(events) == TokenUsage(input_tokens=11, output_tokens=9, total_tokens=20)


async def test_ollama_parallel_tool_calls_arrive_whole_in_one_chunk() -> None:
    # Ollama does not stream a call's arguments: each call comes whole, with its `index`, and
    # several calls of one answer come in the same delta (openai/openai.go, toToolCalls).
    calls = [
        {"id": "call_a1", "index": 0, "type": "function",
         "function": {"name": "exec_command", "arguments": '{"cmd":"ls"}'}},
        {"id": "call_b2", "index": 1, "type": "function",
         "function": {"name": "exec_command", "arguments": '{"cmd":"pwd"}'}},
    ]  # fmt: skip
    events = await replay(
        chunk({"role": "assistant", "content": "", "tool_calls": calls}),
        chunk({"role": "assistant", "content": ""}, "tool_calls"),
        DONE,
    )

    done = items(events)
    assert [(i["call_id"], i["arguments"]) for i in done] == [
        ("call_a1", '{"cmd":"ls"}'),
        ("call_b2", '{"cmd":"pwd"}'),
    ]
    assert usage(events) is None


async def test_vllm_streams_a_call_s_arguments_in_pieces_after_its_name() -> None:
    # vLLM with --enable-auto-tool-choice and a tool parser
    # (https://docs.vllm.ai/en/latest/features/tool_calling/): the first delta of a call holds its
    # id, type and name, later ones only `function.arguments` pieces; reasoning goes in
    # `reasoning_content` (`reasoning` since 0.11: https://docs.vllm.ai/en/latest/features/reasoning_outputs/).
    head = {"index": 0, "id": "chatcmpl-tool-9f2", "type": "function", "function": {"name": "apply_patch"}}
    events = await replay(
        chunk({"role": "assistant", "content": ""}, logprobs=None),
        chunk({"reasoning_content": "Need a file."}, logprobs=None),
        chunk({"tool_calls": [head]}, logprobs=None),
        chunk(
            {"tool_calls": [{"index": 0, "function": {"arguments": '{"input": "*** Begin'}}]}, logprobs=None
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": ' Patch"}'}}]}, logprobs=None),
        chunk({"content": ""}, "tool_calls", logprobs=None, stop_reason=None),
        {**chunk(None), "usage": {"prompt_tokens": 40, "total_tokens": 52, "completion_tokens": 12}},
        DONE,
    )

    reasoning_item, call = items(events)
    assert reasoning_item["content"][0]["text"] == "Need a file."
    assert (call["name"], call["arguments"]) == ("apply_patch", '{"input": "*** Begin Patch"}')
    assert usage(events) == TokenUsage(input_tokens=40, output_tokens=12, total_tokens=52)


async def test_llama_cpp_reasoning_content_and_usage_on_the_finish_chunk() -> None:
    # llama-server (https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md):
    # with --reasoning-format deepseek (the default) thoughts stream in `reasoning_content`; the
    # last chunk carries the finish reason, `usage` and llama.cpp's own `timings`.
    events = await replay(
        chunk({"role": "assistant", "content": None}),
        chunk({"reasoning_content": "Simple greeting."}),
        chunk({"content": "Hi"}),
        chunk({"content": " there."}),
        {
            **chunk({}, "stop"),
            "usage": {"completion_tokens": 14, "prompt_tokens": 25, "total_tokens": 39},
            "timings": {"prompt_n": 25, "prompt_ms": 30.1, "predicted_n": 14, "predicted_ms": 120.5},
        },
        DONE,
    )

    assert reasoning(events) == "Simple greeting." and text(events) == "Hi there."
    assert usage(events) == TokenUsage(input_tokens=25, output_tokens=14, total_tokens=39)


async def test_llama_cpp_without_a_reasoning_parser_leaves_think_tags_in_the_content() -> None:
    # llama-server --reasoning-format none (same README): DeepSeek-R1's `<think>` block stays in
    # `content`, cut wherever the tokens fall.
    events = await replay(
        chunk({"role": "assistant", "content": "<th"}),
        chunk({"content": "ink>\nCount the r"}),
        chunk({"content": "s.</thi"}),
        chunk({"content": "nk>\n\nThere are 3."}),
        chunk({}, "stop"),
        DONE,
    )

    assert reasoning(events).strip() == "Count the rs."
    assert text(events) == "There are 3."
    assert items(events)[-1]["content"][0]["text"] == "There are 3."


async def test_qwen3_thinking_template_sends_only_the_closing_tag_and_the_text_before_it_is_reasoning() -> (
    None
):
    # Qwen3's thinking templates (QwQ-32B, Qwen3-*-Thinking-2507: tokenizer_config.json's
    # chat_template ends the generation prompt with "<think>\n") on vLLM or llama-server without a
    # reasoning parser: the content holds the thoughts, a bare `</think>`, then the answer.
    events = await replay(
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "The user says hi."}),
        chunk({"content": " Greet back.\n</th"}),
        chunk({"content": "ink>\n\nHello!"}),
        chunk({"content": " How can I help?"}),
        chunk({}, "stop"),
        DONE,
    )

    thoughts, answer = items(events)
    assert thoughts["type"] == "reasoning"
    assert thoughts["content"] == [{"type": "reasoning_text", "text": "The user says hi. Greet back."}]
    assert answer["type"] == "message"
    assert answer["content"][0]["text"] == "Hello! How can I help?"


async def test_a_closing_tag_the_model_writes_about_after_an_opening_one_stays_text() -> None:
    said = "Wrap thoughts as <think>…</think> and then answer."
    events = await replay(
        chunk({"role": "assistant", "content": said[:20]}),
        chunk({"content": said[20:]}),
        chunk({}, "stop"),
        DONE,
    )

    assert [item["type"] for item in items(events)] == ["message"]
    assert items(events)[0]["content"][0]["text"] == said == text(events)


async def test_lm_studio_tool_call_with_text_before_it_and_no_done_line() -> None:
    # LM Studio's /v1/chat/completions (https://lmstudio.ai/docs/developer/openai-compat/tools):
    # calls stream OpenAI's way with numeric-looking ids; `system_fingerprint` names the model.
    # The stream here ends without `[DONE]` after the finish chunk: the answer is still whole.
    fp = {"system_fingerprint": "qwen3-8b"}
    first = {
        "index": 0,
        "id": "365174485",
        "type": "function",
        "function": {"name": "exec_command", "arguments": ""},
    }
    events = await replay(
        {**chunk({"role": "assistant", "content": "Let me check."}), **fp},
        {**chunk({"tool_calls": [first]}), **fp},
        {
            **chunk(
                {"tool_calls": [{"index": 0, "type": "function", "function": {"arguments": '{"cmd":"ls"}'}}]}
            ),
            **fp,
        },
        {**chunk({}, "tool_calls"), **fp},
    )

    message, call = items(events)
    assert message["content"][0]["text"] == "Let me check."
    assert (call["call_id"], call["name"], call["arguments"]) == ("365174485", "exec_command", '{"cmd":"ls"}')
    assert isinstance(events[-1], Completed)
