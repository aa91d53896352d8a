"""The JSONL events of `codex exec --json` 0.169.0, field for field, to check `tether exec` against.

Observed from the real binary (`@openai/codex@0.169.0`) against the fake model: key order and
types below are what it printed. `todo_list` (0.169.0 offers its models no plan tool) follows the
TypeScript SDK's published types; `mcp_tool_call` likewise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Check = Callable[[Any], bool]


def _str(value: Any) -> bool:
    return isinstance(value, str)


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _one_of(*choices: str) -> Check:
    return lambda value: value in choices


def _opt_int(value: Any) -> bool:
    return value is None or _int(value)


def _usage(value: Any) -> bool:
    keys = ["input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens"]
    keys.append("reasoning_output_tokens")
    return isinstance(value, dict) and list(value) == keys and all(_int(v) for v in value.values())


def _message_object(value: Any) -> bool:
    return isinstance(value, dict) and list(value) == ["message"] and _str(value["message"])


def _changes(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(c, dict) and list(c) == ["path", "kind"] and _str(c["path"]) and c["kind"] in KINDS
        for c in value
    )


def _todo_items(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(i, dict)
        and list(i) == ["text", "completed"]
        and _str(i["text"])
        and isinstance(i["completed"], bool)
        for i in value
    )


def _anything(value: Any) -> bool:
    return True


KINDS = ("add", "delete", "update")

EVENTS: dict[str, list[tuple[str, Check]]] = {
    "thread.started": [("thread_id", _str)],
    "turn.started": [],
    "turn.completed": [("usage", _usage)],
    "turn.failed": [("error", _message_object)],
    "error": [("message", _str)],
}

ITEMS: dict[str, list[tuple[str, Check]]] = {
    "agent_message": [("text", _str)],
    "reasoning": [("text", _str)],
    "command_execution": [
        ("command", _str),
        ("aggregated_output", _str),
        ("exit_code", _opt_int),
        ("status", _one_of("in_progress", "completed", "failed")),
    ],
    "file_change": [("changes", _changes), ("status", _one_of("in_progress", "completed", "failed"))],
    "todo_list": [("items", _todo_items)],
    "error": [("message", _str)],
    "web_search": [("query", _str), ("action", _anything)],
    "mcp_tool_call": [
        ("server", _str),
        ("tool", _str),
        ("arguments", _anything),
        ("result", _anything),
        ("error", _anything),
        ("status", _one_of("in_progress", "completed", "failed")),
    ],
}


def _check_fields(
    where: str, value: dict[str, Any], fields: list[tuple[str, Check]], lead: list[str]
) -> None:
    expected = [*lead, *(name for name, _ in fields)]
    assert list(value) == expected, f"{where}: keys {list(value)} != {expected}"
    for name, check in fields:
        assert check(value[name]), f"{where}: bad {name}={value[name]!r}"


def validate_event(event: dict[str, Any]) -> None:
    """Assert `event` has exactly the fields, order and types `codex exec --json` prints."""
    kind = event.get("type")
    if kind in ("item.started", "item.updated", "item.completed"):
        assert list(event) == ["type", "item"], f"{kind}: keys {list(event)}"
        item = event["item"]
        item_kind = item.get("type")
        assert item_kind in ITEMS, f"unknown item type {item_kind!r}"
        assert _str(item.get("id")) and item["id"].startswith("item_"), f"item id {item.get('id')!r}"
        _check_fields(f"{kind} {item_kind}", item, ITEMS[item_kind], ["id", "type"])
        return
    assert kind in EVENTS, f"unknown event type {kind!r}"
    _check_fields(str(kind), event, EVENTS[kind], ["type"])


def validate_stream(events: list[dict[str, Any]]) -> None:
    """Every event valid; the stream opens with thread.started and item ids stay consistent."""
    assert events and events[0]["type"] == "thread.started", events[:1]
    kinds: dict[str, str] = {}
    for event in events:
        validate_event(event)
        item = event.get("item")
        if item is not None:
            assert kinds.setdefault(item["id"], item["type"]) == item["type"], f"id reused: {item}"
