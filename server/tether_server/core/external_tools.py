"""Tools from outside the core: the provider's hosted search, MCP servers' tools, the client's tools.

Each is a `ToolSource` of the turn's registry, beside the built-in tools. Their definitions follow
the built-in ones in every request, in a fixed order (`tool_search`, hosted, MCP by name, then the
client's as declared), so the request prefix stays byte-stable while the inventory does not change.
A name is looked up in the built-in tools first, then the client's, then the MCP servers'.

On a Responses provider the MCP tools are deferred as Codex 0.169.0 defers them: only `tool_search`
is offered and the model finds them with it (`tool_search`). A Chat Completions server has no
client-run search tool, so it gets the MCP tools as functions (or a search function past
`mcp_calls.DEFER_ABOVE`).
"""

from __future__ import annotations

from typing import Any

from tether_server.core import dynamic_calls, mcp_calls, mcp_resources, tool_search, web_search
from tether_server.core.agent_tools import AgentTools
from tether_server.core.dynamic_calls import DynamicTools
from tether_server.core.tool_calls import BUILTIN_HEAD, BUILTIN_TAIL
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

HEAD, TAIL = StaticTools(BUILTIN_HEAD), StaticTools(BUILTIN_TAIL)


def registry(
    web_search_mode: str,
    mcp: McpManager | None,
    dynamic: DynamicTools | None = None,
    modes: ToolSource | None = None,
    goals: ToolSource | None = None,
    *,
    deferred: bool = False,
    agents: AgentTools | None = None,
) -> ToolRegistry:
    """The tools of a turn; `modes`: the collaboration mode's (`plan_mode.tools`), between the
    built-in head and tail as Codex orders them; `goals`: the goal tools (`goal_tools.GoalTools`),
    after them; `deferred`: MCP tools behind `tool_search` (the provider runs the Responses API)."""
    hosted, servers = HostedSearch(web_search_mode), McpTools(mcp, deferred)
    client = ClientTools(dynamic)
    # Codex's order: the shell tools, the MCP resource tools (with a server configured), the mode's
    # tool, then apply_patch and view_image.
    resources = mcp_resources.tools(mcp)
    head: list[ToolSource] = [HEAD] if resources is None else [HEAD, resources]
    core: list[ToolSource] = [*head, TAIL] if modes is None else [*head, modes, TAIL]
    if goals is not None:
        core.append(goals)
    search: list[ToolSource] = [DeferredSearch(mcp, agents)] if deferred else []
    # The sub-agent tools are deferred as Codex defers them: looked up, never listed (`agent_tools`).
    spawned: list[ToolSource] = [agents] if agents is not None else []
    return ToolRegistry(
        offered=[*core, *search, hosted, servers, client], lookup=[*core, *search, *spawned, client, servers]
    )


class DeferredSearch:
    """Codex's client-run `tool_search` over the MCP servers' tools, offered even when none is
    configured (as Codex offers it)."""

    def __init__(self, manager: McpManager | None, agents: AgentTools | None = None) -> None:
        self._manager = manager
        self._agents = agents  # the sub-agent tools, found here as on Codex (`agent_tools`)

    def specs(self) -> list[dict[str, Any]]:
        return [tool_search.SPEC]

    def find(self, name: str) -> Tool | None:
        if name != tool_search.SPEC["type"]:
            return None
        manager, agents = self._manager, self._agents

        async def run(ctx: ToolContext, call: ToolCall) -> ToolOutput:
            found = tool_search.search(manager.tools() if manager is not None else [], call.arguments())
            if agents is not None:
                found.extend(agents.search(ctx.thread_id, call.arguments()))
            return ToolOutput("", content=found)

        return Tool(name, None, run, parallel=True)


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

    def __init__(self, manager: McpManager | None, deferred: bool = False) -> None:
        self._manager, self._deferred = manager, deferred

    def specs(self) -> list[dict[str, Any]]:
        return [] if self._deferred else mcp_calls.tool_specs(self._manager)

    def find(self, name: str) -> Tool | None:
        manager = self._manager
        if manager is None:
            return None
        if name == mcp_calls.SEARCH_TOOL and not self._deferred:

            async def search(ctx: ToolContext, call: ToolCall) -> ToolOutput:
                return mcp_calls.search(manager, call.arguments())

            return Tool(name, None, search)
        tool = manager.find(name)
        if tool is None and name.startswith(PREFIX):
            # A namespaced call (`mcp__<server>` + the tool's own name) of a tool whose name the
            # qualified form had to rewrite.
            tool = next((t for t in manager.tools() if f"{PREFIX}{t.server}__{t.name}" == name), None)
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
