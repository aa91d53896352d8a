"""A tool call's metrics label: the tool's name when the turn offered it, `other` otherwise."""

from __future__ import annotations

from tether_server.core.toolbox import StaticTools, Tool, ToolCall, ToolContext, ToolOutput, ToolRegistry


async def _run(ctx: ToolContext, call: ToolCall) -> ToolOutput:
    return ToolOutput("ok")


def _spec(name: str) -> dict[str, str]:
    return {"type": "function", "name": name}


def test_only_offered_tools_and_the_ones_their_search_finds_are_named() -> None:
    offered = StaticTools(
        [Tool("exec_command", _spec("exec_command"), _run), Tool("tool_search", _spec("tool_search"), _run)]
    )
    looked_up = StaticTools(
        [
            Tool("mcp__fx__deferred", None, _run, offered_by="tool_search"),
            Tool("lookup_only", None, _run),
            Tool("mcp__fx__elsewhere", None, _run, offered_by="not_offered"),
        ]
    )
    registry = ToolRegistry(offered=[offered], lookup=[offered, looked_up])
    assert registry.metric_label("exec_command") == "other"  # nothing offered before the first request
    registry.specs()
    assert registry.metric_label("exec_command") == "exec_command"
    assert registry.metric_label("mcp__fx__deferred") == "mcp__fx__deferred"
    assert registry.metric_label("lookup_only") == "other"
    assert registry.metric_label("mcp__fx__elsewhere") == "other"
    assert registry.metric_label("made_up_by_the_model") == "other"
