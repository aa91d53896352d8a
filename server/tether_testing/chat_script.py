"""Builders for scripted Chat Completions answers, played by `FakeChatServer`.

The same script format as `tether_testing.script` (a JSON-able ``{"kind": "sse", "steps": …}``),
with ``{"chunk": {...}}`` steps: one ``data:`` line each, as chat servers stream them, ended by
``data: [DONE]``. `delay`, `gated`, `raw` and `http_error` of `tether_testing.script` work here.

A reply is built from parts, streamed in order::

    chat_reply(chat_reasoning("Let me look."), chat_text("Running it."),
               chat_tool_call("shell_command", {"command": "ls"}))
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import Any

from tether_testing.script import ScriptedResponse, Step, estimate_tokens, split_text

_ids = itertools.count(1)
DONE_STEP: Step = {"raw": "data: [DONE]\n\n"}


@dataclass(frozen=True)
class ChatPart:
    """One part of a chat reply: the `delta` objects it streams, and its output tokens.

    `tool_call` parts hold deltas without their `index`: `chat_reply` numbers the calls.
    """

    deltas: list[dict[str, Any]]
    output_tokens: int = 0
    reasoning_tokens: int = 0
    tool_call: bool = False


def chat_text(text: str, *, deltas: int = 5) -> ChatPart:
    """Answer text, streamed as `deltas` `content` pieces."""
    pieces = [{"content": piece} for piece in split_text(text, deltas) if piece]
    return ChatPart(pieces, estimate_tokens(text))


def chat_reasoning(text: str, *, field: str = "reasoning_content", deltas: int = 2) -> ChatPart:
    """Reasoning text in `field` (`reasoning_content`: llama.cpp, LM Studio, DeepSeek; `reasoning`:
    Ollama, vLLM, OpenRouter)."""
    pieces = [{field: piece} for piece in split_text(text, deltas) if piece]
    tokens = estimate_tokens(text)
    return ChatPart(pieces, tokens, tokens)


def chat_think(text: str, *, deltas: int = 3) -> ChatPart:
    """Reasoning inside the content, as ``<think>…</think>`` (servers without a reasoning parser)."""
    block = f"<think>\n{text}\n</think>\n\n"
    pieces = [{"content": piece} for piece in split_text(block, deltas) if piece]
    tokens = estimate_tokens(text)
    return ChatPart(pieces, tokens, tokens)


def chat_tool_call(
    name: str, arguments: dict[str, Any] | str, call_id: str | None = None, *, pieces: int = 3
) -> ChatPart:
    """A function call: its id and name first, then the JSON arguments in `pieces` pieces."""
    args = arguments if isinstance(arguments, str) else json.dumps(arguments, separators=(",", ":"))
    cid = call_id or f"call_{next(_ids):06d}"
    first = {"id": cid, "type": "function", "function": {"name": name, "arguments": ""}}
    rest = [{"function": {"arguments": piece}} for piece in split_text(args, pieces) if piece]
    return ChatPart([first, *rest], estimate_tokens(name + args), tool_call=True)


def chat_reply(
    *parts: ChatPart | Step,
    usage: dict[str, Any] | None = None,
    model: str = "local-test",
    finish_reason: str | None = None,
    interleave_calls: bool = False,
    headers: dict[str, str] | None = None,
) -> ScriptedResponse:
    """One chat completion: the parts' chunks, a finish chunk, a usage chunk, ``[DONE]``.

    `usage` is a chat `usage` object (see `chat_usage`); None: plausible numbers from the request.
    `interleave_calls` sends the pieces of several tool calls in turns, as parallel calls may come.
    """
    cid = f"chatcmpl-{next(_ids):06d}"

    def chunk(delta: dict[str, Any] | None, finish: str | None = None) -> Step:
        choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
        body = {"id": cid, "object": "chat.completion.chunk", "created": 1, "model": model}
        body["choices"] = choices
        return {"chunk": body}

    steps: list[Step] = [chunk({"role": "assistant", "content": ""})]
    calls = [part for part in parts if isinstance(part, ChatPart) and part.tool_call]
    for part in parts:
        if not isinstance(part, ChatPart):
            steps.append(part)
        elif not part.tool_call:
            steps.extend(chunk(delta) for delta in part.deltas)
        elif not interleave_calls:
            index = calls.index(part)
            steps.extend(chunk({"tool_calls": [{"index": index, **d}]}) for d in part.deltas)
    if interleave_calls:
        rounds = itertools.zip_longest(*[part.deltas for part in calls])
        for round_ in rounds:
            for index, delta in enumerate(round_):
                if delta is not None:
                    steps.append(chunk({"tool_calls": [{"index": index, **delta}]}))
    steps.append(chunk({}, finish_reason or ("tool_calls" if calls else "stop")))
    final = chunk(None)
    if usage is not None:
        final["chunk"]["usage"] = usage
    else:
        chat_parts = [part for part in parts if isinstance(part, ChatPart)]
        final["auto_usage"] = {
            "output_tokens": sum(part.output_tokens for part in chat_parts),
            "reasoning_tokens": sum(part.reasoning_tokens for part in chat_parts),
        }
    steps.extend([final, DONE_STEP])
    return {"kind": "sse", "steps": steps, "headers": dict(headers or {})}


def chat_text_reply(text: str, *, deltas: int = 5) -> ScriptedResponse:
    """A chat completion holding one answer."""
    return chat_reply(chat_text(text, deltas=deltas))


def chat_usage(prompt_tokens: int, completion_tokens: int, *, reasoning_tokens: int = 0) -> dict[str, Any]:
    """A chat `usage` object."""
    usage: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
    if reasoning_tokens:
        usage["completion_tokens_details"] = {"reasoning_tokens": reasoning_tokens}
    return usage


def chat_stream(*data: str | dict[str, Any]) -> ScriptedResponse:
    """A 200 stream of exactly these `data:` payloads (JSON objects, or text such as ``[DONE]``):
    a real server's stream, as its documentation shows it."""
    steps: list[Step] = []
    for payload in data:
        text = payload if isinstance(payload, str) else json.dumps(payload)
        steps.append({"raw": f"data: {text}\n\n"})
    return {"kind": "sse", "steps": steps, "headers": {}}
