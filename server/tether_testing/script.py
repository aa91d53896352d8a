"""Builders for scripted Responses API answers.

A scripted response is a plain JSON-able dict, so a script is also a JSON file:

* ``{"kind": "sse", "steps": [...], "headers": {...}}`` — a 200 SSE stream. Each step is
  ``{"event": {...}}`` (one SSE event), ``{"delay_ms": n}``, ``{"gate": name}`` (pause until
  `FakeResponsesServer.release(name)`), ``{"raw": text}`` (bytes sent as they are: malformed
  SSE) or ``{"disconnect": true}`` (drop the connection).
* ``{"kind": "http_error", "status": n, "body": {...}, "retry_after": s}`` — an error answer.

Event shapes follow the Responses API streaming events (core.md §2.6).
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass, field
from typing import Any

ScriptedResponse = dict[str, Any]
Step = dict[str, Any]

_ids = itertools.count(1)


def _new_id(prefix: str) -> str:
    return f"{prefix}_{next(_ids):06d}"


def estimate_tokens(text: str) -> int:
    """A plausible token count for `text` (about four characters a token)."""
    return math.ceil(len(text) / 4)


@dataclass(frozen=True)
class OutputItem:
    """One output item of a reply: its streaming events and its final (done) form.

    Attributes:
        added: the item as announced by `response.output_item.added`.
        done: the authoritative item of `response.output_item.done`.
        events: events between the two, without `output_index`/`sequence_number`.
        output_tokens: tokens this item adds to the output usage.
        reasoning_tokens: the reasoning share of `output_tokens`.
    """

    added: dict[str, Any]
    done: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    output_tokens: int = 0
    reasoning_tokens: int = 0


def split_text(text: str, parts: int) -> list[str]:
    """`text` cut into `parts` nearly equal, non-empty pieces (fewer if text is short)."""
    parts = max(1, min(parts, len(text))) if text else 1
    size, extra = divmod(len(text), parts)
    pieces, start = [], 0
    for index in range(parts):
        end = start + size + (1 if index < extra else 0)
        pieces.append(text[start:end])
        start = end
    return pieces


def message(text: str, *, deltas: int = 5, msg_id: str | None = None, phase: str | None = None) -> OutputItem:
    """An assistant message streamed as `deltas` `response.output_text.delta` events."""
    item_id = msg_id or _new_id("msg")
    added: dict[str, Any] = {"type": "message", "id": item_id, "status": "in_progress", "role": "assistant"}
    added["content"] = []
    done = {**added, "status": "completed"}
    done["content"] = [{"type": "output_text", "text": text, "annotations": []}]
    if phase is not None:
        added["phase"] = done["phase"] = phase
    events = [
        {"type": "response.output_text.delta", "item_id": item_id, "content_index": 0, "delta": piece}
        for piece in split_text(text, deltas)
        if piece
    ]
    return OutputItem(added, done, events, output_tokens=estimate_tokens(text))


def reasoning(
    summary: list[str] | None = None,
    *,
    encrypted_content: str | None = "gAAAAB-fake-encrypted-reasoning",
    content: list[str] | None = None,
    item_id: str | None = None,
    deltas: int = 2,
) -> OutputItem:
    """A reasoning item: summary parts (and optional raw `content` text), encrypted blob."""
    rid = item_id or _new_id("rs")
    summary = summary or []
    events: list[dict[str, Any]] = []
    for index, text in enumerate(summary):
        part = {"type": "summary_text", "text": ""}
        events.append(
            {
                "type": "response.reasoning_summary_part.added",
                "item_id": rid,
                "summary_index": index,
                "part": part,
            }
        )
        events.extend(
            {
                "type": "response.reasoning_summary_text.delta",
                "item_id": rid,
                "summary_index": index,
                "delta": p,
            }
            for p in split_text(text, deltas)
            if p
        )
    for index, text in enumerate(content or []):
        events.extend(
            {"type": "response.reasoning_text.delta", "item_id": rid, "content_index": index, "delta": p}
            for p in split_text(text, deltas)
            if p
        )
    done: dict[str, Any] = {"type": "reasoning", "id": rid, "summary": []}
    done["summary"] = [{"type": "summary_text", "text": text} for text in summary]
    if content:
        done["content"] = [{"type": "reasoning_text", "text": text} for text in content]
    done["encrypted_content"] = encrypted_content
    tokens = estimate_tokens("".join(summary) + "".join(content or [])) + 16
    return OutputItem({"type": "reasoning", "id": rid, "summary": []}, done, events, tokens, tokens)


def function_call(
    name: str,
    arguments: dict[str, Any] | str,
    call_id: str | None = None,
    *,
    item_id: str | None = None,
    namespace: str | None = None,
) -> OutputItem:
    """A `function_call` item; dict `arguments` are JSON-encoded as the API does. `namespace`: a call
    of a tool found by `tool_search` (e.g. ``mcp__fx``, `name` being the tool's own name)."""
    args = arguments if isinstance(arguments, str) else json.dumps(arguments, separators=(",", ":"))
    fid = item_id or _new_id("fc")
    cid = call_id or _new_id("call")
    added = {"type": "function_call", "id": fid, "status": "in_progress", "call_id": cid, "name": name}
    if namespace is not None:
        added["namespace"] = namespace
    added["arguments"] = ""
    done = {**added, "status": "completed", "arguments": args}
    events = [{"type": "response.function_call_arguments.delta", "item_id": fid, "delta": args}]
    return OutputItem(added, done, events, output_tokens=estimate_tokens(name + args))


def tool_search_call(
    query: str, call_id: str | None = None, *, limit: int | None = None, item_id: str | None = None
) -> OutputItem:
    """A client-run `tool_search_call` item (its arguments an object, not JSON text)."""
    arguments: dict[str, Any] = {"query": query}
    if limit is not None:
        arguments["limit"] = limit
    tid = item_id or _new_id("tsc")
    cid = call_id or _new_id("call")
    added: dict[str, Any] = {
        "type": "tool_search_call",
        "id": tid,
        "call_id": cid,
        "status": "in_progress",
        "execution": "client",
    }
    added["arguments"] = {}
    done = {**added, "status": "completed", "arguments": arguments}
    return OutputItem(added, done, [], output_tokens=estimate_tokens(query))


def custom_tool_call(
    name: str, input: str, call_id: str | None = None, *, item_id: str | None = None
) -> OutputItem:
    """A freeform `custom_tool_call` item (e.g. apply_patch) with streamed input deltas."""
    cid_ = item_id or _new_id("ctc")
    cid = call_id or _new_id("call")
    added = {"type": "custom_tool_call", "id": cid_, "status": "in_progress", "call_id": cid, "name": name}
    added["input"] = ""
    done = {**added, "status": "completed", "input": input}
    events = [
        {"type": "response.custom_tool_call_input.delta", "item_id": cid_, "call_id": cid, "delta": piece}
        for piece in split_text(input, 2)
        if piece
    ]
    return OutputItem(added, done, events, output_tokens=estimate_tokens(name + input))


def web_search_call(
    query: str = "", *, action: dict[str, Any] | None = None, item_id: str | None = None
) -> OutputItem:
    """A hosted `web_search_call` item: announced in progress, done with its action.

    `action` defaults to a search for `query`; pass e.g. ``{"type": "open_page", "url": ...}``.
    """
    wid = item_id or _new_id("ws")
    added = {"type": "web_search_call", "id": wid, "status": "in_progress"}
    act = action if action is not None else {"type": "search", "query": query, "queries": [query]}
    done = {**added, "status": "completed", "action": act}
    events = [
        {"type": "response.web_search_call.in_progress", "item_id": wid},
        {"type": "response.web_search_call.searching", "item_id": wid},
        {"type": "response.web_search_call.completed", "item_id": wid},
    ]
    return OutputItem(added, done, events, output_tokens=estimate_tokens(query) + 8)


def delay(ms: float) -> Step:
    """Pause the stream for `ms` milliseconds at this point."""
    return {"delay_ms": ms}


def raw(text: str) -> Step:
    """Send `text` into the stream as it is (e.g. an SSE event whose data is not JSON)."""
    return {"raw": text}


def gated(name: str) -> Step:
    """Pause the stream at this point until the test calls `fake.release(name)`."""
    return {"gate": name}


def usage(
    input_tokens: int = 0,
    output_tokens: int = 0,
    *,
    cached_input_tokens: int = 0,
    reasoning_output_tokens: int = 0,
    total_tokens: int | None = None,
) -> dict[str, Any]:
    """A `usage` object as sent in `response.completed`."""
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": cached_input_tokens},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": reasoning_output_tokens},
        "total_tokens": input_tokens + output_tokens if total_tokens is None else total_tokens,
    }


def _created(response_id: str, model: str) -> Step:
    response = {
        "id": response_id,
        "object": "response",
        "status": "in_progress",
        "model": model,
        "output": [],
    }
    return {"event": {"type": "response.created", "response": response}}


def reply(
    *parts: OutputItem | Step,
    usage: dict[str, Any] | None = None,
    response_id: str | None = None,
    model: str = "gpt-test",
    headers: dict[str, str] | None = None,
) -> ScriptedResponse:
    """One complete response: `response.created`, each item's events, `response.completed`.

    Steps (`delay`, `gated`) placed before the first item run before `response.created`.
    When `usage` is None the server fills in plausible numbers from the request size.
    """
    rid = response_id or _new_id("resp")
    leading = list(itertools.takewhile(lambda part: not isinstance(part, OutputItem), parts))
    steps: list[Step] = [part for part in leading if not isinstance(part, OutputItem)]
    steps.append(_created(rid, model))
    items: list[OutputItem] = []
    for part in parts[len(leading) :]:
        if isinstance(part, OutputItem):
            steps.extend(_item_steps(part, len(items)))
            items.append(part)
        else:
            steps.append(part)
    steps.append(_completed(rid, model, items, usage))
    return {"kind": "sse", "steps": steps, "headers": dict(headers or {})}


def _item_steps(item: OutputItem, output_index: int) -> list[Step]:
    events = [
        {"type": "response.output_item.added", "output_index": output_index, "item": item.added},
        *({**event, "output_index": output_index} for event in item.events),
        {"type": "response.output_item.done", "output_index": output_index, "item": item.done},
    ]
    return [{"event": event} for event in events]


def _completed(rid: str, model: str, items: list[OutputItem], usage: dict[str, Any] | None) -> Step:
    response = {
        "id": rid,
        "object": "response",
        "status": "completed",
        "model": model,
        "output": [item.done for item in items],
        "usage": usage,
    }
    step: Step = {"event": {"type": "response.completed", "response": response}}
    if usage is None:
        step["auto_usage"] = {
            "output_tokens": sum(item.output_tokens for item in items),
            "reasoning_tokens": sum(item.reasoning_tokens for item in items),
        }
    return step


def text_reply(
    text: str, *, deltas: int = 5, msg_id: str | None = None, usage: dict[str, Any] | None = None
) -> ScriptedResponse:
    """A response holding one assistant message."""
    return reply(message(text, deltas=deltas, msg_id=msg_id), usage=usage)


def failed(code: str, message: str = "", *, response_id: str | None = None) -> ScriptedResponse:
    """`response.created` then `response.failed` with `error: {code, message}`; no completion."""
    rid = response_id or _new_id("resp")
    error = {"code": code, "message": message or f"the response failed: {code}"}
    response = {"id": rid, "object": "response", "status": "failed", "error": error}
    return {
        "kind": "sse",
        "steps": [_created(rid, "gpt-test"), {"event": {"type": "response.failed", "response": response}}],
        "headers": {},
    }


def incomplete(reason: str = "max_output_tokens", *, response_id: str | None = None) -> ScriptedResponse:
    """`response.created` then `response.incomplete` with the given reason."""
    rid = response_id or _new_id("resp")
    response = {
        "id": rid,
        "object": "response",
        "status": "incomplete",
        "incomplete_details": {"reason": reason},
    }
    steps = [_created(rid, "gpt-test"), {"event": {"type": "response.incomplete", "response": response}}]
    return {"kind": "sse", "steps": steps, "headers": {}}


def disconnect_after(events: int = 1, response: ScriptedResponse | None = None) -> ScriptedResponse:
    """`response` (default: a short text reply) cut off after `events` SSE events."""
    base = response or text_reply("This answer is cut off mid-stream.")
    steps: list[Step] = []
    seen = 0
    for step in base["steps"]:
        if "event" in step:
            if seen == events:
                break
            seen += 1
        steps.append(step)
    steps.append({"disconnect": True})
    return {**base, "steps": steps}


def http_error(
    status: int,
    body: dict[str, Any] | None = None,
    retry_after: float | None = None,
    *,
    headers: dict[str, str] | None = None,
) -> ScriptedResponse:
    """A non-2xx answer with a JSON body (default: an OpenAI-style error object)."""
    if body is None:
        body = {"error": {"message": f"scripted error {status}", "type": "fake_error", "code": None}}
    response: ScriptedResponse = {
        "kind": "http_error",
        "status": status,
        "body": body,
        "headers": dict(headers or {}),
    }
    if retry_after is not None:
        response["retry_after"] = retry_after
    return response


def load_script(text: str) -> list[ScriptedResponse]:
    """Parse a JSON script: a list whose entries are scripted responses or bare strings.

    A bare string is shorthand for `text_reply(string)`.

    Raises:
        ValueError: the JSON is not a list of responses.
    """
    entries = json.loads(text)
    if not isinstance(entries, list):
        raise ValueError("a script must be a JSON list of responses")
    script: list[ScriptedResponse] = []
    for index, entry in enumerate(entries):
        if isinstance(entry, str):
            script.append(text_reply(entry))
        elif isinstance(entry, dict) and entry.get("kind") in ("sse", "http_error"):
            script.append(entry)
        else:
            raise ValueError(f"script entry {index} is neither a string nor a response with a known kind")
    return script
