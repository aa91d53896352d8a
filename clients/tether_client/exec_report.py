"""What `tether exec` shows while a turn runs: exec events as JSONL on stdout (`--json`), or
readable progress lines on stderr (stdout then carries only the final message)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TextIO

import orjson

from tether_client.exec_events import ExecEvent

_KIND_MARK = {"add": "A", "delete": "D", "update": "M"}
_OUTPUT_LINES = 20


def note(text: str) -> None:
    """A progress line on stderr (stdout is for the answer)."""
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _tail(text: str) -> list[str]:
    lines = text.rstrip("\n").splitlines()
    if len(lines) <= _OUTPUT_LINES:
        return lines
    return [f"… {len(lines) - _OUTPUT_LINES} lines omitted", *lines[-_OUTPUT_LINES:]]


def _command(event_type: str, item: dict[str, Any]) -> list[str]:
    if event_type == "item.started":
        return [f"$ {item.get('command', '')}"]
    code = item.get("exit_code")
    verdict = "succeeded" if item.get("status") == "completed" else f"failed (exit {code})"
    return [f"  {verdict}", *(f"  │ {line}" for line in _tail(item.get("aggregated_output") or ""))]


def _todo(event_type: str, item: dict[str, Any]) -> list[str]:
    if event_type == "item.completed":
        return []  # the last update already showed it
    steps = item.get("items") or []
    return ["plan", *(f"  [{'x' if s.get('completed') else ' '}] {s.get('text', '')}" for s in steps)]


def _file_change(item: dict[str, Any]) -> list[str]:
    marks = [f"  {_KIND_MARK.get(c.get('kind'), '?')} {c.get('path', '')}" for c in item.get("changes") or []]
    return [f"patch {item.get('status')}", *marks]


def _titled(title: str, text: Any) -> list[str]:
    return [title, *(f"  {line}" for line in str(text or "").splitlines())]


_COMPLETED: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "file_change": _file_change,
    "reasoning": lambda item: _titled("thinking", item.get("text")),
    "agent_message": lambda item: _titled("agent", item.get("text")),
    "error": lambda item: [f"warning: {item.get('message', '')}"],
    "web_search": lambda item: [f"web search: {item.get('query', '')}"],
    "mcp_tool_call": lambda item: [
        f"tool {item.get('server', '')}.{item.get('tool', '')} {item.get('status', '')}"
    ],
}
"""Exec item type → its lines once completed (commands and the plan also show as they go)."""


def _item_lines(event_type: str, item: dict[str, Any]) -> list[str]:
    kind = str(item.get("type"))
    if kind == "command_execution" and event_type != "item.updated":
        return _command(event_type, item)
    if kind == "todo_list":
        return _todo(event_type, item)
    render = _COMPLETED.get(kind)
    return render(item) if render and event_type == "item.completed" else []


def progress_lines(event: ExecEvent) -> list[str]:
    """The human lines for one exec event (often none)."""
    event_type = event.get("type")
    if event_type in ("item.started", "item.updated", "item.completed"):
        return _item_lines(str(event_type), event.get("item") or {})
    if event_type == "error":
        return [f"ERROR: {event.get('message', '')}"]
    if event_type == "turn.failed":
        return [f"turn failed: {(event.get('error') or {}).get('message', '')}"]
    if event_type == "turn.completed":
        usage = event.get("usage") or {}
        total = int(usage.get("input_tokens", 0)) + int(usage.get("output_tokens", 0))
        return [f"tokens used: {total}"]
    return []


class Reporter:
    """Writes exec events as they come: JSONL on `out`, or progress lines on stderr."""

    def __init__(self, *, json_mode: bool, out: TextIO | None = None) -> None:
        self._json = json_mode
        self._out = out or sys.stdout

    def report(self, events: list[ExecEvent]) -> None:
        for event in events:
            if self._json:
                self._out.write(orjson.dumps(event).decode() + "\n")
                self._out.flush()
                continue
            for line in progress_lines(event):
                note(line)
