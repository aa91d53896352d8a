"""The exec event translation for what the integration tests cannot make Tether's server produce."""

from __future__ import annotations

from typing import Any

from tests.support.exec_shapes import validate_event

from tether_client.exec_events import ExecEvents


def _events(*notes: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    events = ExecEvents()
    out = events.thread_started("t1")
    for method, params in notes:
        out += events.translate(method, params)
    for event in out:
        validate_event(event)
    return out


def test_a_web_search_shows_started_then_completed_with_its_query() -> None:
    item = {"type": "webSearch", "id": "ws_1", "query": "", "action": None}
    done = {**item, "query": "tether docs", "action": {"type": "search", "query": "tether docs"}}
    out = _events(("item/started", {"item": item}), ("item/completed", {"item": done}))
    assert out[1:] == [
        {
            "type": "item.started",
            "item": {"id": "item_0", "type": "web_search", "query": "", "action": {"type": "other"}},
        },
        {
            "type": "item.completed",
            "item": {"id": "item_0", "type": "web_search", "query": "tether docs", "action": done["action"]},
        },
    ]


def test_an_mcp_tool_call_carries_its_result_or_error() -> None:
    call = {"type": "mcpToolCall", "id": "m1", "server": "docs", "tool": "find", "arguments": {"q": 1}}
    ok = {
        **call,
        "status": "completed",
        "result": {"content": [{"type": "text", "text": "hit"}], "structuredContent": {"n": 1}},
    }
    bad = {**call, "id": "m2", "status": "failed", "error": {"message": "no server"}}
    out = _events(("item/completed", {"item": ok}), ("item/completed", {"item": bad}))
    assert out[1]["item"]["result"] == {
        "content": [{"type": "text", "text": "hit"}],
        "structured_content": {"n": 1},
    }
    assert out[1]["item"]["status"] == "completed" and out[1]["item"]["error"] is None
    assert out[2]["item"]["error"] == {"message": "no server"} and out[2]["item"]["status"] == "failed"


def test_warnings_before_the_thread_wait_for_thread_started() -> None:
    events = ExecEvents()
    assert events.translate("configWarning", {"summary": "unknown key", "details": "x"}) == []
    out = events.thread_started("t1")
    assert out == [
        {"type": "thread.started", "thread_id": "t1"},
        {"type": "item.completed", "item": {"id": "item_0", "type": "error", "message": "unknown key\nx"}},
    ]


def test_a_declined_command_is_failed_and_an_interrupted_turn_ends_without_an_event() -> None:
    item = {"type": "commandExecution", "id": "c1", "command": "rm -rf /", "status": "declined"}
    out = _events(
        ("item/completed", {"item": item}),
        ("item/completed", {"item": {"type": "userMessage", "id": "u1", "content": []}}),
        ("turn/completed", {"turn": {"status": "interrupted"}}),
    )
    assert out[1:] == [
        {
            "type": "item.completed",
            "item": {
                "id": "item_0",
                "type": "command_execution",
                "command": "rm -rf /",
                "aggregated_output": "",
                "exit_code": None,
                "status": "failed",
            },
        }
    ]
