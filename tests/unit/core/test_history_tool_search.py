"""A search the daemon never answered (interrupt, crash) still gets its output in the next request:
the Responses API refuses a history with an unanswered `tool_search_call`."""

from __future__ import annotations

from tether_server.core.history import normalized


def test_an_unanswered_search_gets_an_empty_result_right_after_it() -> None:
    call = {
        "type": "tool_search_call",
        "call_id": "call_s",
        "execution": "client",
        "arguments": {"query": "x"},
    }
    user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go on"}]}
    assert normalized([call, user]) == [
        call,
        {
            "type": "tool_search_output",
            "call_id": "call_s",
            "status": "completed",
            "execution": "client",
            "tools": [],
        },
        user,
    ]


def test_an_answered_search_is_left_as_it_is() -> None:
    call = {
        "type": "tool_search_call",
        "call_id": "call_s",
        "execution": "client",
        "arguments": {"query": "x"},
    }
    out = {
        "type": "tool_search_output",
        "call_id": "call_s",
        "status": "completed",
        "execution": "client",
        "tools": [],
    }
    assert normalized([call, out]) == [call, out]
