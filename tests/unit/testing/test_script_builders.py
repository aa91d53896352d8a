"""Script builders produce Responses API event shapes the real client understands."""

from __future__ import annotations

import json

from tether_testing import disconnect_after, failed, http_error, message, reasoning, reply, text_reply, usage
from tether_testing.script import split_text


def event_types(response: dict[str, object]) -> list[str]:
    steps = response["steps"]
    assert isinstance(steps, list)
    return [step["event"]["type"] for step in steps if "event" in step]


def test_text_is_split_into_the_requested_number_of_deltas_without_losing_characters() -> None:
    assert split_text("Hello there", 5) == ["Hel", "lo", " t", "he", "re"]
    assert split_text("ab", 10) == ["a", "b"]


def test_reply_wraps_items_between_created_and_completed_with_output_indexes() -> None:
    response = reply(reasoning(["why"]), message("answer"))

    events = [step["event"] for step in response["steps"] if "event" in step]

    assert events[0]["type"] == "response.created"
    assert events[-1]["type"] == "response.completed"
    done = [event for event in events if event["type"] == "response.output_item.done"]
    assert [(event["output_index"], event["item"]["type"]) for event in done] == [
        (0, "reasoning"),
        (1, "message"),
    ]
    assert events[-1]["response"]["output"] == [event["item"] for event in done]


def test_explicit_usage_has_the_wire_shape() -> None:
    assert usage(10, 5, cached_input_tokens=4, reasoning_output_tokens=2) == {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 4},
        "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 2},
        "total_tokens": 15,
    }


def test_disconnect_after_keeps_only_the_first_events() -> None:
    response = disconnect_after(events=2, response=text_reply("hello"))

    assert event_types(response) == ["response.created", "response.output_item.added"]
    assert response["steps"][-1] == {"disconnect": True}


def test_failed_and_http_error_responses_round_trip_through_json() -> None:
    script = [failed("server_is_overloaded", "busy"), http_error(429, retry_after=3)]

    assert json.loads(json.dumps(script)) == script
    assert event_types(script[0]) == ["response.created", "response.failed"]
    assert script[1]["retry_after"] == 3
