"""A `ModelRequest` (Responses-shaped) as a Chat Completions request body.

The core keeps one history shape, the Responses API's; a chat server is sent the same turn
rewritten: messages keep their roles (developer as system, which every chat template knows),
function and custom tool calls become an assistant message's `tool_calls` answered by `tool`
messages, and what a chat server cannot take back (reasoning, hosted search calls, encrypted
blobs) is left out.
"""

from __future__ import annotations

from typing import Any

import orjson

from tether_server.providers.base import ModelRequest

_CALL_TYPES = ("function_call", "custom_tool_call")
_OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output")
# OpenAI-compatible servers take low/medium/high (vLLM's request model, LM Studio, Ollama, which
# also takes "none"); OpenAI's names at either end go to the nearest of those.
_CHAT_EFFORTS = {"minimal": "low", "xhigh": "high"}
FREEFORM_PARAMETER = "input"
"""The one string parameter a freeform (custom) tool is offered with: chat has only JSON tools."""


def chat_body(request: ModelRequest) -> dict[str, Any]:
    """The JSON body of ``POST /chat/completions`` for `request`."""
    body: dict[str, Any] = {"model": request.model, "messages": chat_messages(request)}
    body["stream"] = True
    body["stream_options"] = {"include_usage": True}
    tools = chat_tools(request.tools)
    if tools:
        body["tools"] = tools
        body["tool_choice"] = "auto"
        body["parallel_tool_calls"] = request.parallel_tool_calls
    schema = _response_format(request.text)
    if schema is not None:
        body["response_format"] = schema
    if request.reasoning_effort:
        body["reasoning_effort"] = _CHAT_EFFORTS.get(request.reasoning_effort, request.reasoning_effort)
    return body


def chat_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools a chat model can call. Hosted tools (web search) run on the Responses server
    only, so they are not offered: a model would call them and get nothing back."""
    out: list[dict[str, Any]] = []
    for tool in tools:
        kind = tool.get("type")
        if kind == "function":
            function = {"name": tool.get("name"), "description": tool.get("description", "")}
            function["parameters"] = tool.get("parameters") or {"type": "object", "properties": {}}
            out.append({"type": "function", "function": function})
        elif kind == "custom":
            out.append({"type": "function", "function": _freeform_as_function(tool)})
    return out


def _freeform_as_function(tool: dict[str, Any]) -> dict[str, Any]:
    description = str(tool.get("description") or "").replace(
        "This is a FREEFORM tool: send the patch text itself, not JSON.",
        f"Send the whole patch text as the `{FREEFORM_PARAMETER}` string.",
    )
    grammar = (tool.get("format") or {}).get("definition")
    detail = "The tool's whole input text."
    if isinstance(grammar, str) and grammar:
        detail += " It follows this Lark grammar:\n" + grammar
    parameters = {
        "type": "object",
        "properties": {FREEFORM_PARAMETER: {"type": "string", "description": detail}},
        "required": [FREEFORM_PARAMETER],
        "additionalProperties": False,
    }
    return {"name": tool.get("name"), "description": description, "parameters": parameters}


def _response_format(text: dict[str, Any] | None) -> dict[str, Any] | None:
    fmt = (text or {}).get("format")
    if not isinstance(fmt, dict) or fmt.get("type") != "json_schema":
        return None
    schema = {"name": fmt.get("name") or "output", "schema": fmt.get("schema") or {}}
    if "strict" in fmt:
        schema["strict"] = fmt["strict"]
    return {"type": "json_schema", "json_schema": schema}


def chat_messages(request: ModelRequest) -> list[dict[str, Any]]:
    """The conversation: instructions first, then the history, each tool call with its answer."""
    messages: list[dict[str, Any]] = []
    if request.instructions:
        messages.append({"role": "system", "content": request.instructions})
    for item in request.input:
        kind = item.get("type", "message")
        if kind == "message":
            _add_message(messages, item)
        elif kind in _CALL_TYPES:
            _add_call(messages, item)
        elif kind in _OUTPUT_TYPES:
            content = _output_text(item.get("output"))
            messages.append(
                {"role": "tool", "tool_call_id": str(item.get("call_id") or ""), "content": content}
            )
    return messages


def _add_message(messages: list[dict[str, Any]], item: dict[str, Any]) -> None:
    role = str(item.get("role") or "user")
    if role == "developer":
        role = "system"
    content = _content(item.get("content"))
    if role == "system" and messages and messages[-1]["role"] == "system" and len(messages) == 1:
        # Templates that take one leading system message (Qwen, Llama) get one.
        messages[-1]["content"] = f"{messages[-1]['content']}\n\n{_as_text(content)}"
        return
    messages.append({"role": role, "content": content})


def _add_call(messages: list[dict[str, Any]], item: dict[str, Any]) -> None:
    if item.get("type") == "custom_tool_call":
        arguments = orjson.dumps({FREEFORM_PARAMETER: str(item.get("input") or "")}).decode()
    else:
        arguments = str(item.get("arguments") or "{}")
    call = {
        "id": str(item.get("call_id") or ""),
        "type": "function",
        "function": {"name": str(item.get("name") or ""), "arguments": arguments},
    }
    last = messages[-1] if messages else None
    # The calls of one response, and the text said before them, are one assistant message.
    if last is not None and last["role"] == "assistant" and "tool_calls" in last:
        last["tool_calls"].append(call)
    elif last is not None and last["role"] == "assistant":
        last["tool_calls"] = [call]
    else:
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})


def _content(parts: Any) -> str | list[dict[str, Any]]:
    """Plain text when the message is text only (every server takes that), else content parts."""
    if isinstance(parts, str):
        return parts
    out: list[dict[str, Any]] = []
    for part in parts or []:
        kind = part.get("type")
        if kind in ("input_text", "output_text", "text"):
            out.append({"type": "text", "text": str(part.get("text") or "")})
        elif kind == "input_image" and part.get("image_url"):
            out.append({"type": "image_url", "image_url": {"url": str(part["image_url"])}})
    if all(part["type"] == "text" for part in out):
        return "".join(part["text"] for part in out)
    return out


def _as_text(content: str | list[dict[str, Any]]) -> str:
    if isinstance(content, str):
        return content
    return "".join(str(part.get("text") or "") for part in content)


def _output_text(output: Any) -> str:
    """A tool's output as the text a `tool` message carries (images are described, not sent)."""
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        texts = []
        for part in output:
            if not isinstance(part, dict):
                continue
            if part.get("type") in ("input_text", "output_text", "text"):
                texts.append(str(part.get("text") or ""))
            elif part.get("type") == "input_image":
                texts.append("[image omitted: this provider's tool messages carry text only]")
        return "\n".join(texts)
    return "" if output is None else orjson.dumps(output).decode()
