"""Helpers that reduce a message log to its shape: methods, item types, statuses, order."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

Message = dict[str, Any]

TURN_FLOW = {
    "thread/status/changed",
    "turn/started",
    "turn/completed",
    "item/started",
    "item/completed",
    "item/agentMessage/delta",
    "item/reasoning/summaryTextDelta",
    "item/commandExecution/outputDelta",
}
"""The notifications whose relative order a turn's shape is made of."""


def label(message: Message) -> str:
    """A message's shape in a few words, e.g. `item/started agentMessage` or `status idle`."""
    method = message.get("method")
    if method is None:
        return "<error>" if "error" in message else "<result>"
    params = message.get("params") or {}
    if method in ("item/started", "item/completed"):
        return f"{method} {params.get('item', {}).get('type')}"
    if method == "thread/status/changed":
        status = params.get("status", {})
        flags = status.get("activeFlags") or []
        return f"status {status.get('type')}" + (f"[{','.join(flags)}]" if flags else "")
    if method == "turn/completed":
        return f"turn/completed {params.get('turn', {}).get('status')}"
    return str(method)


def flow(messages: Iterable[Message], *, keep: set[str] = TURN_FLOW) -> list[str]:
    """The labels of the turn-flow notifications, runs of identical deltas collapsed to `X+`."""
    out: list[str] = []
    for m in messages:
        if m.get("method") not in keep or "id" in m:
            continue
        text = label(m)
        if text.endswith("/delta") or text.endswith("Delta"):
            text += "+"
            if out and out[-1] == text:
                continue
        out.append(text)
    return out


def is_subsequence(expected: list[str], actual: list[str]) -> bool:
    """Whether `expected` appears in `actual` in order (other entries may sit between)."""
    it = iter(actual)
    return all(any(a == e for a in it) for e in expected)


def of_method(messages: Iterable[Message], method: str) -> list[Message]:
    """The notifications `method` in `messages`."""
    return [m for m in messages if m.get("method") == method and "id" not in m]


def items(messages: Iterable[Message], method: str, item_type: str) -> list[dict[str, Any]]:
    """The `item` of every `method` (item/started or item/completed) notification of `item_type`."""
    return [
        m["params"]["item"]
        for m in of_method(messages, method)
        if m["params"]["item"].get("type") == item_type
    ]


def error_code(reply: Message) -> Any:
    """The error code of a reply, or None for a result."""
    return (reply.get("error") or {}).get("code")
