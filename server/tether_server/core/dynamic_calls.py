"""Tools a client declared on `thread/start` (`dynamicTools`): the client runs them, Tether records them.

A namespace's tools reach the model as `<namespace>__<tool>` functions: plain function tools work
with every Responses backend, where the hosted `namespace` type does not.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from tether_server.core import events as ev
from tether_server.core import items
from tether_server.core.ids import now_ms
from tether_server.core.tool_results import cap, dynamic_content
from tether_server.core.toolbox import ToolContext, ToolOutput

DynamicCaller = Callable[[str, str, str | None, str, Any], Awaitable[tuple[list[dict[str, Any]], bool]]]
"""(turn id, call id, namespace, tool, arguments) → (content items, success); raises
DynamicToolUnavailable when no client answers."""


class DynamicToolUnavailable(Exception):
    """Nobody answered the call in time (the owner left and no other client took it)."""


@dataclass(frozen=True)
class DynamicTool:
    namespace: str | None
    name: str
    description: str
    input_schema: dict[str, Any]

    @property
    def model_name(self) -> str:
        return f"{self.namespace}__{self.name}" if self.namespace else self.name


def parse_specs(specs: list[Any]) -> list[DynamicTool]:
    """The declared tools (`DynamicToolSpec` JSON); raises ValueError naming what is wrong."""
    tools: list[DynamicTool] = []
    for spec in specs:
        if not isinstance(spec, dict):
            raise ValueError("dynamicTools: each entry must be an object")
        if spec.get("type", "function") == "namespace":
            namespace = _text(spec, "name")
            tools.extend(_function(inner, namespace) for inner in spec.get("tools") or [])
        else:
            tools.append(_function(spec, None))
    names = [t.model_name for t in tools]
    if len(set(names)) != len(names):
        raise ValueError("dynamicTools: tool names must be unique")
    return tools


def _text(spec: dict[str, Any], key: str) -> str:
    value = spec.get(key)
    if not isinstance(value, str) or not value:
        raise ValueError(f"dynamicTools: `{key}` must be a non-empty string")
    return value


def _function(spec: Any, namespace: str | None) -> DynamicTool:
    if not isinstance(spec, dict):
        raise ValueError("dynamicTools: each tool must be an object")
    schema = spec.get("inputSchema")
    if not isinstance(schema, dict):
        raise ValueError("dynamicTools: `inputSchema` must be a JSON Schema object")
    description = spec.get("description")
    if not isinstance(description, str):
        raise ValueError("dynamicTools: `description` must be a string")
    return DynamicTool(namespace, _text(spec, "name"), description, schema)


@dataclass
class DynamicTools:
    """A thread's declared tools and the way to reach the clients that run them."""

    tools: list[DynamicTool]
    caller: DynamicCaller

    def specs(self) -> list[dict[str, Any]]:
        return [
            {
                "type": "function",
                "name": t.model_name,
                "description": t.description,
                "strict": False,
                "parameters": t.input_schema,
            }
            for t in self.tools
        ]

    def find(self, name: str) -> DynamicTool | None:
        return next((t for t in self.tools if t.model_name == name), None)


def _model_text(content: list[dict[str, Any]]) -> str:
    parts = []
    for entry in content:
        if entry.get("type") == "inputText":
            parts.append(str(entry.get("text", "")))
        else:
            parts.append(json.dumps(entry))
    return "\n".join(parts)


async def call(
    ctx: ToolContext, dynamic: DynamicTools, call_id: str, tool: DynamicTool, args: dict[str, Any]
) -> ToolOutput:
    """Ask the clients to run `tool`; the reply (or the failure) becomes a `dynamicToolCall` item."""
    item = items.DynamicToolCall(call_id, tool.namespace, tool.name, args, now_ms())
    await ctx.sink.emit(ev.ItemStarted(ctx.thread_id, ctx.turn_id, item))
    started = time.monotonic()
    try:
        content, success = await dynamic.caller(ctx.turn_id, call_id, tool.namespace, tool.name, args)
        text = _model_text(content)
        output = ToolOutput(cap(text), success=success)
        item.content_items, item.success = dynamic_content(content, text), success
        item.status = "completed" if success else "failed"
    except DynamicToolUnavailable as exc:
        output = ToolOutput(f"dynamic tool call failed: {exc}", success=False)
        item.success, item.status = False, "failed"
    item.duration_ms = int((time.monotonic() - started) * 1000)
    item.completed_at_ms = now_ms()
    ctx.record_item(item)
    await ctx.sink.emit(ev.ItemCompleted(ctx.thread_id, ctx.turn_id, item))
    return output
