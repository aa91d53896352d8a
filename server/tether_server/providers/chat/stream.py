"""Chat Completions stream chunks as the core's `ModelEvent`s (sans-I/O).

A chat stream has no items: one `delta` per chunk carries reasoning text, answer text or pieces
of tool calls. They become what a Responses stream would have sent: a reasoning item, then a
message item, then one `function_call` item per call, assembled by the call's `index` (a name
and id come first, the arguments in pieces after). Calls are handed over once the choice is
finished, in index order, so several calls of one message run as parallel calls do.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
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
    ReasoningTextDelta,
    TokenUsage,
)
from tether_server.providers.chat.think import UNTAGGED_CLOSE, ThinkSplitter

DONE = b"[DONE]"
_REASONING_FIELDS = ("reasoning_content", "reasoning")
_CONTEXT = re.compile(r"context (length|size|window)|exceed_context_size|too many tokens", re.IGNORECASE)


def parse_usage(usage: Any) -> TokenUsage | None:
    """`TokenUsage` from a chat `usage` object; None when absent or malformed."""
    if not isinstance(usage, dict):
        return None
    prompt_details = usage.get("prompt_tokens_details") or {}
    completion_details = usage.get("completion_tokens_details") or {}
    try:
        prompt, completion = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
        return TokenUsage(
            input_tokens=prompt,
            cached_input_tokens=int(prompt_details.get("cached_tokens") or 0),
            output_tokens=completion,
            reasoning_output_tokens=int(completion_details.get("reasoning_tokens") or 0),
            total_tokens=int(usage.get("total_tokens") or prompt + completion),
        )
    except (TypeError, ValueError, AttributeError):
        return None


def is_context_overflow(message: str) -> bool:
    """Whether a local server's error text says the prompt does not fit the context window."""
    return bool(_CONTEXT.search(message))


def stream_error(error: Any) -> ProviderError:
    """The error an in-stream ``{"error": …}`` chunk (vLLM, OpenRouter, LiteLLM) stands for."""
    if not isinstance(error, dict):
        return errors.stream_disconnected(f"the model server reported an error: {error}")
    message, code = str(error.get("message") or ""), error.get("code")
    if is_context_overflow(message) or code == "context_length_exceeded":
        return errors.ProviderHttpError(
            errors.CONTEXT_WINDOW_MESSAGE, codex_error_info="contextWindowExceeded"
        )
    if isinstance(code, str) and code:
        return errors.from_response_failed({"code": code, "message": message})
    return errors.stream_disconnected(message or "the model server reported an error")


@dataclass
class _Call:
    call_id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class ChatStreamParser:
    """Consumes the data of one chat stream's SSE events, in order."""

    def __init__(self) -> None:
        self.completed = False
        self.finished = False  # a choice said why it stopped: the answer is whole
        self._created = False
        self._response_id = ""
        self._usage: TokenUsage | None = None
        self._failure: ProviderError | None = None
        self._think = ThinkSplitter()
        self._items = 0
        self._reasoning: tuple[str, list[str]] | None = None
        self._message: tuple[str, list[str]] | None = None
        self._calls: dict[int, _Call] = {}

    def handle_data(self, raw: bytes) -> list[ModelEvent]:
        """The events of one SSE event's data."""
        if raw.strip() == DONE:
            return self._complete()
        try:
            chunk = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return []
        if not isinstance(chunk, dict):
            return []
        if "error" in chunk and not chunk.get("choices"):
            self._failure = stream_error(chunk["error"])
            return []
        out: list[ModelEvent] = []
        if not self._created:
            self._created = True
            self._response_id = str(chunk.get("id") or "")
            out.append(Created(self._response_id))
        usage = parse_usage(chunk.get("usage"))
        if usage is not None:
            self._usage = usage
        for choice in chunk.get("choices") or []:
            if isinstance(choice, dict) and choice.get("index", 0) == 0:
                self._choice(choice, out)
        return out

    def end(self) -> list[ModelEvent]:
        """The events at the end of the body, when no `[DONE]` came.

        Raises:
            ProviderError: the stream broke off before the answer was finished, or the server
                reported an error in it.
        """
        if self._failure is not None:
            raise self._failure
        if not self.finished:
            raise errors.stream_disconnected("stream closed before the chat completion finished")
        return self._complete()

    def _complete(self) -> list[ModelEvent]:
        if self._failure is not None:
            raise self._failure
        out: list[ModelEvent] = []
        self._finish(out)
        self.completed = True
        out.append(Completed(self._response_id, self._usage))
        return out

    def _choice(self, choice: dict[str, Any], out: list[ModelEvent]) -> None:
        delta = choice.get("delta")
        if isinstance(delta, dict):
            for name in _REASONING_FIELDS:
                text = delta.get(name)
                if isinstance(text, str) and text:
                    self._reason(text, out)
                    break
            content = delta.get("content")
            if isinstance(content, str) and content:
                self._content(self._think.feed(content), out)
            calls = delta.get("tool_calls")
            if isinstance(calls, list):
                self._tool_calls(calls, out)
        if choice.get("finish_reason"):
            self._finish(out)

    def _content(self, pieces: list[tuple[str, str]], out: list[ModelEvent]) -> None:
        for kind, text in pieces:
            if kind == "reasoning":
                self._reason(text, out)
            elif kind == UNTAGGED_CLOSE:
                self._streamed_text_was_reasoning(out)
            else:
                self._text(text, out)

    def _streamed_text_was_reasoning(self, out: list[ModelEvent]) -> None:
        """The message's text so far was thoughts (see `think`): it becomes a reasoning item, and
        the message, still open, keeps only what follows. Clients were shown the thoughts as answer
        text while they streamed; the finished items are what they keep."""
        if self._message is None:
            return
        thoughts = "".join(self._message[1]).strip()
        self._message[1].clear()
        if not thoughts:
            return
        item_id = self._next_id("rs")
        content = [{"type": "reasoning_text", "text": thoughts}]
        out.append(OutputItemAdded({"type": "reasoning", "id": item_id, "summary": []}))
        out.append(OutputItemDone({"type": "reasoning", "id": item_id, "summary": [], "content": content}))

    def _reason(self, text: str, out: list[ModelEvent]) -> None:
        if self._reasoning is None:
            self._close_message(out)
            item_id = self._next_id("rs")
            self._reasoning = (item_id, [])
            out.append(OutputItemAdded({"type": "reasoning", "id": item_id, "summary": []}))
        self._reasoning[1].append(text)
        out.append(ReasoningTextDelta(self._reasoning[0], 0, text))

    def _text(self, text: str, out: list[ModelEvent]) -> None:
        if self._message is None:
            self._close_reasoning(out)
            item_id = self._next_id("msg")
            self._message = (item_id, [])
            added = {"type": "message", "id": item_id, "role": "assistant", "content": []}
            out.append(OutputItemAdded(added))
        self._message[1].append(text)
        out.append(OutputTextDelta(self._message[0], text))

    def _tool_calls(self, deltas: list[Any], out: list[ModelEvent]) -> None:
        self._content(self._think.flush(), out)
        self._close_reasoning(out)
        self._close_message(out)
        for position, delta in enumerate(deltas):
            if not isinstance(delta, dict):
                continue
            index = delta.get("index")
            call = self._calls.setdefault(index if isinstance(index, int) else position, _Call())
            if delta.get("id"):
                call.call_id = str(delta["id"])
            function = delta.get("function")
            if isinstance(function, dict):
                name = function.get("name")
                if name and name != call.name:  # some servers repeat the name on every piece
                    call.name += str(name)
                arguments = function.get("arguments")
                if isinstance(arguments, str):
                    call.arguments.append(arguments)
                elif isinstance(arguments, dict):  # Ollama's native shape, seen through some proxies
                    call.arguments.append(orjson.dumps(arguments).decode())

    def _finish(self, out: list[ModelEvent]) -> None:
        self.finished = True
        self._content(self._think.flush(), out)
        self._close_reasoning(out)
        self._close_message(out)
        for index in sorted(self._calls):
            call = self._calls[index]
            item = {
                "type": "function_call",
                "id": f"fc_{index}",
                "call_id": call.call_id or f"call_{uuid.uuid4().hex[:24]}",
                "name": call.name,
                "arguments": "".join(call.arguments) or "{}",
            }
            out.append(OutputItemDone(item))
        self._calls.clear()

    def _close_reasoning(self, out: list[ModelEvent]) -> None:
        if self._reasoning is None:
            return
        item_id, parts = self._reasoning
        self._reasoning = None
        content = [{"type": "reasoning_text", "text": "".join(parts).strip()}]
        out.append(OutputItemDone({"type": "reasoning", "id": item_id, "summary": [], "content": content}))

    def _close_message(self, out: list[ModelEvent]) -> None:
        if self._message is None:
            return
        item_id, parts = self._message
        self._message = None
        content = [{"type": "output_text", "text": "".join(parts), "annotations": []}]
        done = {"type": "message", "id": item_id, "role": "assistant", "content": content}
        out.append(OutputItemDone(done))

    def _next_id(self, prefix: str) -> str:
        self._items += 1
        return f"{prefix}_{self._items}"
