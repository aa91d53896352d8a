"""Test support shipped with Tether: scripted fakes of the Responses and Chat Completions APIs.

`FakeResponsesServer` is a real HTTP/1.1 + SSE server on loopback; `script` builds the
responses it plays back, one per ``POST /v1/responses``.
"""

from tether_testing.chat_script import (
    ChatPart,
    chat_reasoning,
    chat_reply,
    chat_stream,
    chat_text,
    chat_text_reply,
    chat_think,
    chat_tool_call,
    chat_usage,
)
from tether_testing.fake_chat import FakeChatServer
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
    "ChatPart",
    "FakeChatServer",
    "FakeResponsesServer",
    "OutputItem",
    "RecordedRequest",
    "chat_reasoning",
    "chat_reply",
    "chat_stream",
    "chat_text",
    "chat_text_reply",
    "chat_think",
    "chat_tool_call",
    "chat_usage",
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
