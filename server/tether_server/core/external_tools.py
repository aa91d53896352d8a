"""Tools from outside the core: the provider's hosted search, MCP servers' tools, the client's tools.

They follow the built-in tools in every request, in a fixed order (hosted, MCP by name, then the
client's as declared), so the
request prefix stays byte-stable while the inventory does not change.
"""

from __future__ import annotations

from typing import Any

from tether_server.core import dynamic_calls, mcp_calls, web_search
from tether_server.core.dynamic_calls import DynamicTools
from tether_server.core.tool_calls import ToolContext, ToolOutput
from tether_server.tools.mcp.manager import PREFIX, McpManager


def request_tools(
    web_search_mode: str, mcp: McpManager | None, dynamic: DynamicTools | None = None
) -> list[dict[str, Any]]:
    """The definitions to append after the built-in tools."""
    tools: list[dict[str, Any]] = []
    hosted = web_search.tool_spec(web_search_mode)
    if hosted is not None:
        tools.append(hosted)
    tools.extend(mcp_calls.tool_specs(mcp))
    if dynamic is not None:
        tools.extend(dynamic.specs())
    return tools


def dispatcher(mcp: McpManager | None, dynamic: DynamicTools | None = None) -> Any:
    """The `ToolContext.external` hook: runs the calls that belong to an outside source."""

    async def run(ctx: ToolContext, call_id: str, name: str, args: dict[str, Any]) -> ToolOutput | None:
        declared = dynamic.find(name) if dynamic is not None else None
        if dynamic is not None and declared is not None:
            return await dynamic_calls.call(ctx, dynamic, call_id, declared, args)
        if mcp is None:
            return None
        if name == mcp_calls.SEARCH_TOOL:
            return mcp_calls.search(mcp, args)
        tool = mcp.find(name)
        if tool is None:
            if name.startswith(PREFIX):
                return ToolOutput(f"MCP tool {name} is not available: its server is not connected", False)
            return None
        return await mcp_calls.call(ctx, mcp, call_id, tool, args)

    return run
