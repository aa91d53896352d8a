"""Model history as recorded and as sent: compaction markers folded, every tool call answered
(whatever happened to the daemon meanwhile)."""

from __future__ import annotations

from typing import Any

_CALL_OUTPUT = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "tool_search_call": "tool_search_output",
}
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
            out.append(_aborted(kind, item.get("call_id")))
    return out


def _aborted(kind: Any, call_id: Any) -> dict[str, Any]:
    if kind == "tool_search_call":
        # A search output has no text: an empty result tells the model nothing was found.
        return {
            "type": "tool_search_output",
            "call_id": call_id,
            "status": "completed",
            "execution": "client",
            "tools": [],
        }
    return {"type": _CALL_OUTPUT[kind], "call_id": call_id, "output": ABORTED}


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
