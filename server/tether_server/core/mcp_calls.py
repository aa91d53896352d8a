"""MCP tools for the model: their definitions (or a search tool when there are many), and calls as items."""

from __future__ import annotations

import json
import time
from typing import Any

from tether_server.core import events as ev
from tether_server.core import items
from tether_server.core.approval import ask_once
from tether_server.core.ids import now_ms
from tether_server.core.tool_results import PROGRESS_CAP_BYTES, cap, mcp_result
from tether_server.core.toolbox import ToolContext, ToolOutput
from tether_server.tools.mcp.calls import CallOrigin, McpCallError
from tether_server.tools.mcp.manager import McpManager, McpTool

DEFER_ABOVE = 100
"""With more MCP tools than this, the model gets `tool_search` instead of every definition."""
SEARCH_TOOL = "tool_search"
SEARCH_LIMIT = 20


def _schema(tool: McpTool) -> dict[str, Any]:
    schema = dict(tool.input_schema)
    schema.setdefault("type", "object")
    if schema.get("type") == "object":
        schema.setdefault("properties", {})
    return schema


def _definition(tool: McpTool) -> dict[str, Any]:
    return {
        "type": "function",
        "name": tool.qualified,
        "description": tool.description,
        "strict": False,
        "parameters": _schema(tool),
    }


def _search_spec(count: int) -> dict[str, Any]:
    return {
        "type": "function",
        "name": SEARCH_TOOL,
        "description": f"Searches the {count} tools of the connected MCP servers by name and description; "
        "returns the matching tools' names and parameter schemas. Call a found tool by its name.",
        "strict": False,
        "parameters": {
            "type": "object",
            "properties": {
                "limit": {
                    "type": "number",
                    "description": f"Most results to return (default {SEARCH_LIMIT}).",
                },
                "query": {"type": "string", "description": "Words to look for."},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
    }


def tool_specs(manager: McpManager | None) -> list[dict[str, Any]]:
    """The MCP tools of every ready server, by name; past `DEFER_ABOVE`, only the search tool."""
    if manager is None:
        return []
    tools = manager.tools()
    if len(tools) > DEFER_ABOVE:
        return [_search_spec(len(tools))]
    return [_definition(t) for t in tools]


def search(manager: McpManager, args: dict[str, Any]) -> ToolOutput:
    """Rank tools by how many query words their name and description hold."""
    words = [w for w in str(args.get("query", "")).lower().split() if w]
    limit = args.get("limit")
    limit = (
        int(limit)
        if isinstance(limit, int | float) and not isinstance(limit, bool) and limit > 0
        else SEARCH_LIMIT
    )
    scored: list[tuple[int, str, McpTool]] = []
    for tool in manager.tools():
        haystack = f"{tool.qualified} {tool.description}".lower()
        score = sum(haystack.count(w) for w in words)
        if score or not words:
            scored.append((-score, tool.qualified, tool))
    scored.sort(key=lambda entry: (entry[0], entry[1]))
    found = [
        {"name": t.qualified, "description": t.description, "parameters": _schema(t)}
        for _, _, t in scored[:limit]
    ]
    return ToolOutput(json.dumps({"tools": found}, ensure_ascii=False))


def _model_text(result: dict[str, Any]) -> str:
    if result.get("structuredContent") is not None:
        return json.dumps(result["structuredContent"], ensure_ascii=False)
    parts = []
    for block in result.get("content") or []:
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        else:
            parts.append(json.dumps(block, ensure_ascii=False))
    return "\n".join(parts)


async def _approved(ctx: ToolContext, item: items.McpToolCall, tool: McpTool) -> tuple[bool, str]:
    """(may it run, why not): the approval policy and the tool's annotations decide whether to ask."""
    policy = ctx.approval_policy
    if not tool.needs_approval or policy == "never":
        return True, ""
    if isinstance(policy, dict) and not policy.get("granular", {}).get("mcp_elicitations", True):
        return False, "the approval policy rejects MCP tool approvals"
    ask = ev.McpToolApprovalAsk(
        ctx.thread_id,
        ctx.turn_id,
        item.id,
        item.started_at_ms,
        tool.server,
        tool.name,
        item.arguments,
        tool.destructive,
    )
    if ctx.set_flags is not None:
        await ctx.set_flags(["waitingOnApproval"])
    try:
        accepted, _failed = await ask_once(
            ctx.ask, ask, f"mcp:{tool.server}:{tool.name}", ctx.approved_for_session, None
        )
    finally:
        if ctx.set_flags is not None:
            await ctx.set_flags([])
    return accepted, "" if accepted else "user rejected MCP tool call"


async def call(
    ctx: ToolContext, manager: McpManager, call_id: str, tool: McpTool, args: dict[str, Any]
) -> ToolOutput:
    """Run one MCP tool call as an `mcpToolCall` item; every failure is the model's to read."""
    item = items.McpToolCall(call_id, tool.server, tool.name, args, now_ms(), read_only=tool.read_only)
    await ctx.sink.emit(ev.ItemStarted(ctx.thread_id, ctx.turn_id, item))
    started = time.monotonic()
    accepted, why = await _approved(ctx, item, tool)
    if not accepted:
        return await _finish(ctx, item, started, error=why)
    conn = manager.get(tool.server)

    async def report(progress: float, total: float | None, message: str | None) -> None:
        text = cap(message, PROGRESS_CAP_BYTES) if message else None
        text = text or (f"{progress:g}/{total:g}" if total else f"{progress:g}")
        ctx.sink.emit_delta(ev.McpToolCallProgress(ctx.thread_id, ctx.turn_id, call_id, text))

    try:
        if conn is None:
            raise McpCallError(f"unknown MCP server '{tool.server}'")
        result = await conn.call_tool(tool.name, args, CallOrigin(ctx.thread_id, ctx.turn_id), report)
    except McpCallError as exc:
        return await _finish(ctx, item, started, error=cap(str(exc)))
    wire = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    full_text = _model_text(wire)
    item.result = mcp_result(
        {
            "content": wire.get("content") or [],
            "structuredContent": wire.get("structuredContent"),
            "_meta": wire.get("_meta"),
        },
        full_text,
    )
    text = cap(full_text)
    if result.is_error:
        return await _finish(ctx, item, started, error=text, model_text=text)
    return await _finish(ctx, item, started, model_text=text)


async def _finish(
    ctx: ToolContext,
    item: items.McpToolCall,
    started: float,
    *,
    error: str | None = None,
    model_text: str | None = None,
) -> ToolOutput:
    item.duration_ms = int((time.monotonic() - started) * 1000)
    item.status = "failed" if error is not None else "completed"
    item.error = error
    item.completed_at_ms = now_ms()
    ctx.record_item(item)
    await ctx.sink.emit(ev.ItemCompleted(ctx.thread_id, ctx.turn_id, item))
    if error is not None and model_text is None:
        return ToolOutput(f"MCP tool call failed: {error}", success=False)
    return ToolOutput(model_text or "", success=error is None)
