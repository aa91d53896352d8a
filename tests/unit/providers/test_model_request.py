"""The request body matches the Responses API shape Codex sends, byte-stable across calls."""

from __future__ import annotations

import orjson

from tether_server.providers.base import ModelRequest

USER = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}


def test_body_has_codex_key_order_and_fixed_fields() -> None:
    request = ModelRequest(
        model="gpt-5.5",
        instructions="be helpful",
        input=[USER],
        tools=[{"type": "function", "name": "exec_command"}],
        parallel_tool_calls=True,
        reasoning={"effort": "medium"},
        text={"verbosity": "low"},
        prompt_cache_key="thread-1",
        include=["reasoning.encrypted_content"],
    )

    body = request.body()

    assert list(body) == [
        "model",
        "instructions",
        "stream",
        "input",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "reasoning",
        "store",
        "include",
        "prompt_cache_key",
        "text",
    ]
    assert body["stream"] is True
    assert body["store"] is False
    assert body["tool_choice"] == "auto"


def test_empty_instructions_and_unset_options_are_omitted_but_reasoning_null_is_sent() -> None:
    body = ModelRequest(model="m", instructions="", input=[USER]).body()

    assert "instructions" not in body
    assert "text" not in body
    assert "prompt_cache_key" not in body
    assert body["reasoning"] is None


def test_equal_requests_serialize_to_identical_bytes() -> None:
    def make() -> ModelRequest:
        return ModelRequest(model="m", instructions="i", input=[USER], prompt_cache_key="k")

    assert orjson.dumps(make().body()) == orjson.dumps(make().body())
