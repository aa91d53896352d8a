"""Test support shipped with Tether: a scripted fake of the OpenAI Responses API.

`FakeResponsesServer` is a real HTTP/1.1 + SSE server on loopback; `script` builds the
responses it plays back, one per ``POST /v1/responses``.
"""

from tether_testing.fake_responses import FakeResponsesServer, RecordedRequest
from tether_testing.script import (
    OutputItem,
    custom_tool_call,
    delay,
    disconnect_after,
    failed,
    function_call,
    gated,
    http_error,
    incomplete,
    message,
    reasoning,
    reply,
    text_reply,
    usage,
    web_search_call,
)

__all__ = [
    "FakeResponsesServer",
    "OutputItem",
    "RecordedRequest",
    "custom_tool_call",
    "delay",
    "disconnect_after",
    "failed",
    "function_call",
    "gated",
    "http_error",
    "incomplete",
    "message",
    "reasoning",
    "reply",
    "text_reply",
    "usage",
    "web_search_call",
]
