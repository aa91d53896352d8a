"""App-server notifications → the JSONL events of `codex exec --json` (as of codex-cli 0.169.0).

Consumers of `codex exec` (the official TypeScript SDK among them) read one event per line:
`thread.started`, `turn.started`, `item.started|updated|completed`, `turn.completed`,
`turn.failed` and `error`. The shapes below were observed from the real 0.169.0 binary against
Tether's fake model; `todo_list`, which 0.169.0's models can no longer produce (it offers no plan
tool), follows the SDK's published types. docs/exec.md lists every event with an example.

The mapping is two tables: `ITEM_RULES` (app-server item type → exec item) and
`NOTIFICATION_RULES` (notification method → handler). `ExecEvents` holds what spans
notifications: exec item ids (`item_0`, `item_1`, … per run), the running to-do list, the last
token usage and the turn's fatal error.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ExecEvent = dict[str, Any]
Item = dict[str, Any]

_STATUS = {"inProgress": "in_progress", "completed": "completed", "failed": "failed", "declined": "failed"}
_USAGE_FIELDS = (
    ("input_tokens", "inputTokens"),
    ("cached_input_tokens", "cachedInputTokens"),
    ("cache_write_input_tokens", "cacheWriteInputTokens"),
    ("output_tokens", "outputTokens"),
    ("reasoning_output_tokens", "reasoningOutputTokens"),
)


def _status(item: Item) -> str:
    return _STATUS.get(str(item.get("status")), "completed")


def _agent_message(item: Item) -> Item | None:
    return {"text": item.get("text") or ""}


def _reasoning(item: Item) -> Item | None:
    # Codex shows the summary; raw reasoning text only when there is no summary at all.
    parts = item.get("summary") or item.get("content") or []
    text = "\n".join(str(part) for part in parts)
    return {"text": text} if text else None


def _command(item: Item) -> Item | None:
    exit_code = item.get("exitCode")
    status = _status(item)
    if status == "completed" and exit_code not in (None, 0):
        status = "failed"
    return {
        "command": item.get("command") or "",
        "aggregated_output": item.get("aggregatedOutput") or "",
        "exit_code": exit_code,
        "status": status,
    }


def _change_kind(change: dict[str, Any]) -> str:
    kind = change.get("kind")
    return str(kind.get("type") if isinstance(kind, dict) else kind)


def _file_change(item: Item) -> Item | None:
    changes = [{"path": c.get("path", ""), "kind": _change_kind(c)} for c in item.get("changes") or []]
    return {"changes": changes, "status": _status(item)}


def _mcp_tool_call(item: Item) -> Item | None:
    fields: Item = {
        "server": item.get("server", ""),
        "tool": item.get("tool", ""),
        "arguments": item.get("arguments"),
        "result": None,
        "error": None,
        "status": _status(item),
    }
    result = item.get("result")
    if isinstance(result, dict):
        fields["result"] = {
            "content": result.get("content") or [],
            "structured_content": result.get("structuredContent"),
        }
    error = item.get("error")
    if isinstance(error, dict):
        fields["error"] = {"message": error.get("message", "")}
    return fields


def _web_search(item: Item) -> Item | None:
    return {"query": item.get("query") or "", "action": item.get("action") or {"type": "other"}}


@dataclass(frozen=True)
class ItemRule:
    """How one app-server item type shows in the exec stream.

    Attributes:
        kind: the exec item's `type`.
        fields: the exec item's other fields from the app-server item (None: not shown).
        started: whether `item/started` is reported too (else only the completion).
    """

    kind: str
    fields: Callable[[Item], Item | None]
    started: bool


ITEM_RULES: dict[str, ItemRule] = {
    "agentMessage": ItemRule("agent_message", _agent_message, started=False),
    "reasoning": ItemRule("reasoning", _reasoning, started=False),
    "commandExecution": ItemRule("command_execution", _command, started=True),
    "fileChange": ItemRule("file_change", _file_change, started=True),
    "mcpToolCall": ItemRule("mcp_tool_call", _mcp_tool_call, started=True),
    "webSearch": ItemRule("web_search", _web_search, started=True),
}
"""App-server item types with an exec counterpart; other items (user messages, plans, …) are
not part of the exec stream. The plan reaches it as `todo_list` from `turn/plan/updated`."""


def error_text(error: dict[str, Any]) -> str:
    """An app-server error as one line: the message, then its details in parentheses."""
    message = str(error.get("message") or "")
    details = error.get("additionalDetails")
    if details and str(details) not in message:
        return f"{message} ({details})" if message else str(details)
    return message


class ExecEvents:
    """Translates one connection's notifications for one thread into exec events."""

    def __init__(self) -> None:
        self._ids: dict[str, str] = {}
        self._next_id = 0
        self._thread_started = False
        self._early: list[ExecEvent] = []
        self._todo: tuple[str, list[dict[str, Any]]] | None = None
        self._usage: dict[str, int] = {name: 0 for name, _ in _USAGE_FIELDS}
        self._fatal: str | None = None

    def thread_started(self, thread_id: str) -> list[ExecEvent]:
        """`thread.started`, then any warning that arrived before the thread existed."""
        self._thread_started = True
        early, self._early = self._early, []
        return [{"type": "thread.started", "thread_id": thread_id}, *early]

    def translate(self, method: str, params: dict[str, Any]) -> list[ExecEvent]:
        """The exec events one notification stands for (often none)."""
        handler = NOTIFICATION_RULES.get(method)
        return handler(self, params) if handler else []

    def _item_id(self, app_id: str | None) -> str:
        if app_id is not None and app_id in self._ids:
            return self._ids[app_id]
        exec_id = self._new_id()
        if app_id is not None:
            self._ids[app_id] = exec_id
        return exec_id

    def _new_id(self) -> str:
        exec_id = f"item_{self._next_id}"
        self._next_id += 1
        return exec_id

    def _item_event(self, event_type: str, item: Item, *, need_started: bool) -> list[ExecEvent]:
        rule = ITEM_RULES.get(str(item.get("type")))
        if rule is None or (need_started and not rule.started):
            return []
        fields = rule.fields(item)
        if fields is None:
            return []
        exec_item = {"id": self._item_id(item.get("id")), "type": rule.kind, **fields}
        return [{"type": event_type, "item": exec_item}]

    def _warning_item(self, message: str) -> list[ExecEvent]:
        event = {
            "type": "item.completed",
            "item": {"id": self._new_id(), "type": "error", "message": message},
        }
        if not self._thread_started:
            self._early.append(event)
            return []
        return [event]

    def _finish_todo(self) -> list[ExecEvent]:
        if self._todo is None:
            return []
        todo_id, items = self._todo
        self._todo = None
        return [{"type": "item.completed", "item": {"id": todo_id, "type": "todo_list", "items": items}}]

    def _on_turn_started(self, params: dict[str, Any]) -> list[ExecEvent]:
        self._fatal = None
        return [{"type": "turn.started"}]

    def _on_item_started(self, params: dict[str, Any]) -> list[ExecEvent]:
        return self._item_event("item.started", params.get("item") or {}, need_started=True)

    def _on_item_completed(self, params: dict[str, Any]) -> list[ExecEvent]:
        return self._item_event("item.completed", params.get("item") or {}, need_started=False)

    def _on_plan(self, params: dict[str, Any]) -> list[ExecEvent]:
        items = [
            {"text": str(step.get("step", "")), "completed": step.get("status") == "completed"}
            for step in params.get("plan") or []
        ]
        if self._todo is None:
            self._todo = (self._new_id(), items)
            event_type = "item.started"
        else:
            self._todo = (self._todo[0], items)
            event_type = "item.updated"
        return [{"type": event_type, "item": {"id": self._todo[0], "type": "todo_list", "items": items}}]

    def _on_token_usage(self, params: dict[str, Any]) -> list[ExecEvent]:
        # Codex reports the thread's running total, so a resumed thread's usage includes earlier turns.
        total = (params.get("tokenUsage") or {}).get("total") or {}
        self._usage = {name: int(total.get(wire) or 0) for name, wire in _USAGE_FIELDS}
        return []

    def _on_error(self, params: dict[str, Any]) -> list[ExecEvent]:
        message = error_text(params.get("error") or {})
        if not params.get("willRetry"):
            self._fatal = message
        return [{"type": "error", "message": message}]

    def _on_warning(self, params: dict[str, Any]) -> list[ExecEvent]:
        return self._warning_item(str(params.get("message") or ""))

    def _on_notice(self, params: dict[str, Any]) -> list[ExecEvent]:
        details = params.get("details")
        summary = str(params.get("summary") or "")
        return self._warning_item(f"{summary}\n{details}" if details else summary)

    def _on_turn_completed(self, params: dict[str, Any]) -> list[ExecEvent]:
        turn = params.get("turn") or {}
        status = turn.get("status")
        out = self._finish_todo()
        if status == "completed":
            out.append({"type": "turn.completed", "usage": dict(self._usage)})
        elif status == "failed":
            error = turn.get("error")
            message = error_text(error) if isinstance(error, dict) else self._fatal
            out.append({"type": "turn.failed", "error": {"message": message or self._fatal or "turn failed"}})
        # An interrupted turn ends the stream without a final event, as `codex exec` does on Ctrl-C.
        return out


NOTIFICATION_RULES: dict[str, Callable[[ExecEvents, dict[str, Any]], list[ExecEvent]]] = {
    "turn/started": ExecEvents._on_turn_started,
    "item/started": ExecEvents._on_item_started,
    "item/completed": ExecEvents._on_item_completed,
    "turn/plan/updated": ExecEvents._on_plan,
    "thread/tokenUsage/updated": ExecEvents._on_token_usage,
    "error": ExecEvents._on_error,
    "warning": ExecEvents._on_warning,
    "configWarning": ExecEvents._on_notice,
    "deprecationNotice": ExecEvents._on_notice,
    "turn/completed": ExecEvents._on_turn_completed,
}
"""Notification methods that show in the exec stream; every other notification is dropped."""
