"""Tools from outside the core: the provider's hosted search, MCP servers' tools, the client's tools.

Each is a `ToolSource` of the turn's registry, beside the built-in tools. Their definitions follow
the built-in ones in every request, in a fixed order (hosted, MCP by name, then the client's as
declared), so the request prefix stays byte-stable while the inventory does not change. A name is
looked up in the built-in tools first, then the client's, then the MCP servers'.
"""

from __future__ import annotations

from typing import Any

from tether_server.core import dynamic_calls, mcp_calls, web_search
from tether_server.core.dynamic_calls import DynamicTools
from tether_server.core.tool_calls import BUILTIN_TOOLS
from tether_server.core.toolbox import (
    StaticTools,
    Tool,
    ToolCall,
    ToolContext,
    ToolOutput,
    ToolRegistry,
    ToolSource,
)
from tether_server.tools.mcp.manager import PREFIX, McpManager

BUILTIN = StaticTools(BUILTIN_TOOLS)


def registry(
    web_search_mode: str,
    mcp: McpManager | None,
    dynamic: DynamicTools | None = None,
    modes: ToolSource | None = None,
    goals: ToolSource | None = None,
    *,
    agents: ToolSource | None = None,
) -> ToolRegistry:
    """The tools of a turn; `modes`: the collaboration mode's (`plan_mode.tools`), beside the built-in;
    `goals`: the goal tools (`goal_tools.GoalTools`), after them."""
    hosted, servers = HostedSearch(web_search_mode), McpTools(mcp)
    client = ClientTools(dynamic)
    core: list[ToolSource] = [BUILTIN] if modes is None else [BUILTIN, modes]
    if goals is not None:
        core.append(goals)
    # The sub-agent tools are deferred as Codex defers them: looked up, never listed (`agent_tools`).
    spawned: list[ToolSource] = [agents] if agents is not None else []
    return ToolRegistry(offered=[*core, hosted, servers, client], lookup=[*core, *spawned, client, servers])


class HostedSearch:
    """The provider's web search: offered, never run here (the provider runs it)."""

    def __init__(self, mode: str) -> None:
        spec = web_search.tool_spec(mode)
        self._specs = [spec] if spec is not None else []

    def specs(self) -> list[dict[str, Any]]:
        return list(self._specs)

    def find(self, name: str) -> Tool | None:
        return None


class McpTools:
    """The connected MCP servers' tools (qualified names), and `tool_search` over large inventories."""

    def __init__(self, manager: McpManager | None) -> None:
        self._manager = manager

    def specs(self) -> list[dict[str, Any]]:
        return mcp_calls.tool_specs(self._manager)

    def find(self, name: str) -> Tool | None:
        manager = self._manager
        if manager is None:
            return None
        if name == mcp_calls.SEARCH_TOOL:

            async def search(ctx: ToolContext, call: ToolCall) -> ToolOutput:
                return mcp_calls.search(manager, call.arguments())

            return Tool(name, None, search)
        tool = manager.find(name)
        if tool is not None:

            async def run(ctx: ToolContext, call: ToolCall) -> ToolOutput:
                return await mcp_calls.call(ctx, manager, call.call_id, tool, call.arguments())

            return Tool(name, None, run, offered_by=mcp_calls.SEARCH_TOOL)
        if name.startswith(PREFIX):

            async def gone(ctx: ToolContext, call: ToolCall) -> ToolOutput:
                return ToolOutput(f"MCP tool {name} is not available: its server is not connected", False)

            return Tool(name, None, gone)
        return None


class ClientTools:
    """The tools the client declared on `thread/start` (`dynamicTools`), answered by the client."""

    def __init__(self, dynamic: DynamicTools | None) -> None:
        self._dynamic = dynamic

    def specs(self) -> list[dict[str, Any]]:
        return self._dynamic.specs() if self._dynamic is not None else []

    def find(self, name: str) -> Tool | None:
        dynamic = self._dynamic
        declared = dynamic.find(name) if dynamic is not None else None
        if dynamic is None or declared is None:
            return None

        async def run(ctx: ToolContext, call: ToolCall) -> ToolOutput:
            return await dynamic_calls.call(ctx, dynamic, call.call_id, declared, call.arguments())

        return Tool(name, None, run)
