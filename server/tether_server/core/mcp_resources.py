"""The MCP resource tools Codex 0.169.0 offers when an MCP server is configured: `list_mcp_resources`,
`list_mcp_resource_templates`, `read_mcp_resource` (names, schemas, outputs and items as observed).

A call is an `mcpToolCall` item of the server named in the arguments (`codex` when the call lists
every server); its result is one text block holding the JSON the model reads. A call naming a server
that is not configured is answered `unknown MCP server '<name>'` with no item, as in Codex.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tether_server.core import events as ev
from tether_server.core import items
from tether_server.core.ids import now_ms
from tether_server.core.tool_results import cap, mcp_result
from tether_server.core.tool_specs import function_tool
from tether_server.core.toolbox import StaticTools, Tool, ToolCall, ToolContext, ToolOutput
from tether_server.tools.mcp.calls import McpCallError

if TYPE_CHECKING:  # the mcp SDK (~1 s of imports on a busy machine) loads only with a configured server
    from tether_server.tools.mcp.connection import ServerConnection
    from tether_server.tools.mcp.manager import McpManager

ALL_SERVERS = "codex"
"""The item's `server` when a list call names none (Codex's own name)."""


def _server_prop(what: str) -> dict[str, Any]:
    return {"type": "string", "description": f"An MCP server's name; omit it to list {what} of every server."}


def _cursor(tool: str) -> dict[str, Any]:
    return {
        "type": "string",
        "description": f"A cursor from an earlier {tool} call; omit it for the first page.",
    }


LIST_SPEC = function_tool(
    "list_mcp_resources",
    "Lists the resources the MCP servers share (files, schemas, records...) as context you can read "
    "with read_mcp_resource.",
    {"cursor": _cursor("list_mcp_resources"), "server": _server_prop("the resources")},
    None,
)
TEMPLATES_SPEC = function_tool(
    "list_mcp_resource_templates",
    "Lists the MCP servers' resource templates: parameterised resource URIs you can fill in and read.",
    {"cursor": _cursor("list_mcp_resource_templates"), "server": _server_prop("the templates")},
    None,
)
READ_SPEC = function_tool(
    "read_mcp_resource",
    "Reads one resource of an MCP server by its URI (as list_mcp_resources gave it).",
    {
        "server": {"type": "string", "description": "The MCP server's name, as list_mcp_resources gave it."},
        "uri": {"type": "string", "description": "The resource's URI, as list_mcp_resources gave it."},
    },
    ["server", "uri"],
)


def tools(manager: McpManager | None) -> StaticTools | None:
    """The resource tools of a turn, or None when no MCP server is configured (Codex offers none then)."""
    if manager is None or not manager.connections():
        return None

    async def list_resources(ctx: ToolContext, call: ToolCall) -> ToolOutput:
        return await _listing(ctx, manager, call, "resources")

    async def list_templates(ctx: ToolContext, call: ToolCall) -> ToolOutput:
        return await _listing(ctx, manager, call, "resourceTemplates")

    async def read(ctx: ToolContext, call: ToolCall) -> ToolOutput:
        return await _read(ctx, manager, call)

    return StaticTools(
        [
            Tool(LIST_SPEC["name"], LIST_SPEC, list_resources, parallel=True),
            Tool(TEMPLATES_SPEC["name"], TEMPLATES_SPEC, list_templates, parallel=True),
            Tool(READ_SPEC["name"], READ_SPEC, read, parallel=True),
        ]
    )


def _entry(server: str, value: Any) -> dict[str, Any]:
    return {"server": server, **value.model_dump(mode="json", by_alias=True, exclude_none=True)}


async def _listing(ctx: ToolContext, manager: McpManager, call: ToolCall, key: str) -> ToolOutput:
    args = call.arguments()
    named = args.get("server")
    if named is not None and manager.get(str(named)) is None:
        return ToolOutput(f"unknown MCP server '{named}'", success=False)
    servers = [manager.get(str(named))] if named is not None else manager.connections()
    item = items.McpToolCall(call.call_id, str(named or ALL_SERVERS), call.name, args, now_ms())
    return await _run(ctx, item, _list(servers, key, None if named is None else str(named)))


async def _list(servers: Sequence[ServerConnection | None], key: str, named: str | None) -> dict[str, Any]:
    found: list[dict[str, Any]] = []
    for conn in servers:
        if conn is None or conn.state != "ready":
            continue
        listed = await (conn.list_resources() if key == "resources" else conn.list_resource_templates())
        found.extend(_entry(conn.config.name, value) for value in listed)
    return {key: found} if named is None else {"server": named, key: found}


async def _read(ctx: ToolContext, manager: McpManager, call: ToolCall) -> ToolOutput:
    args = call.arguments()
    server, uri = str(args.get("server", "")), str(args.get("uri", ""))
    conn = manager.get(server)
    if conn is None:
        return ToolOutput(f"unknown MCP server '{server}'", success=False)

    async def answer() -> dict[str, Any]:
        try:
            result = await conn.read_resource(uri)
        except McpCallError as exc:
            raise McpCallError(
                f"resources/read failed: resources/read failed for `{server}` ({uri}): {exc}"
            ) from None
        contents = [c.model_dump(mode="json", by_alias=True, exclude_none=True) for c in result.contents]
        return {"server": server, "uri": uri, "contents": contents}

    item = items.McpToolCall(call.call_id, server, call.name, args, now_ms())
    return await _run(ctx, item, answer())


async def _run(ctx: ToolContext, item: items.McpToolCall, work: Any) -> ToolOutput:
    await ctx.sink.emit(ev.ItemStarted(ctx.thread_id, ctx.turn_id, item))
    started = time.monotonic()
    try:
        answer = await work
    except McpCallError as exc:
        item.status, item.error, output = "failed", cap(str(exc)), ToolOutput(cap(str(exc)), success=False)
    else:
        text = json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
        item.status = "completed"
        item.result = mcp_result(
            {"content": [{"type": "text", "text": text}], "structuredContent": None, "_meta": None}, text
        )
        output = ToolOutput(cap(text))
    item.duration_ms = int((time.monotonic() - started) * 1000)
    item.completed_at_ms = now_ms()
    ctx.record_item(item)
    await ctx.sink.emit(ev.ItemCompleted(ctx.thread_id, ctx.turn_id, item))
    return output
