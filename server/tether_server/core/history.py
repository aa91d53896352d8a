"""Model history as recorded and as sent: compaction markers folded, every tool call answered
(whatever happened to the daemon meanwhile)."""

from __future__ import annotations

from typing import Any

_CALL_OUTPUT = {"function_call": "function_call_output", "custom_tool_call": "custom_tool_call_output"}
ABORTED = "aborted"


def normalized(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A call whose output never arrived (interrupt, crash) gets a synthetic `aborted` output right
    after it; the Responses API rejects a history with an unanswered call."""
    answered = {str(i.get("call_id")) for i in history if i.get("type") in _CALL_OUTPUT.values()}
    if all(str(i.get("call_id")) in answered for i in history if i.get("type") in _CALL_OUTPUT):
        return list(history)
    out: list[dict[str, Any]] = []
    for item in history:
        out.append(item)
        kind = item.get("type")
        if kind in _CALL_OUTPUT and str(item.get("call_id")) not in answered:
            out.append({"type": _CALL_OUTPUT[kind], "call_id": item.get("call_id"), "output": ABORTED})
    return out


MARKER = "tether.compacted"
"""The history entry compaction records: its `replacement` is the history from there on."""


def fold(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Apply compaction markers: the history a loaded thread continues from."""
    out: list[dict[str, Any]] = []
    for item in history:
        if item.get("type") == MARKER:
            out = list(item.get("replacement") or [])
        else:
            out.append(item)
    return out
