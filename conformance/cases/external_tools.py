"""Tools from outside: hosted web search items, client-declared dynamic tools, the MCP status list."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conformance.context import CaseContext, text_input
from conformance.manifest import case
from conformance.shape import items
from tether_testing import script

DYNAMIC_TOOL = {
    "type": "function",
    "name": "lookup_ticket",
    "description": "Fetch a support ticket.",
    "inputSchema": {"type": "object", "properties": {"id": {"type": "number"}}},
}


@case(
    "tools.web-search",
    requires=["tools.web-search-item"],
    model=[
        script.reply(script.web_search_call("weather in Paris"), script.message("Sunny.")),
    ],
)
async def web_search(ctx: CaseContext) -> None:
    """A hosted web_search_call in the model's output is shown as a webSearch item."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client)
    mark, _done = await ctx.run_turn(client, thread_id, "weather?")
    log = client.since(mark)
    started = items(log, "item/started", "webSearch")
    completed = items(log, "item/completed", "webSearch")
    shape = (len(started), [(i["query"], (i.get("action") or {}).get("type")) for i in completed])
    ctx.expect("tools.web-search-item", shape, (1, [("weather in Paris", "search")]), "webSearch items")


@case(
    "tools.dynamic",
    requires=["tools.dynamic-tool-call"],
    model=[
        script.reply(script.function_call("lookup_ticket", {"id": 7}, "call_dyn")),
        script.text_reply("Ticket 7 is open."),
    ],
)
async def dynamic_tool(ctx: CaseContext) -> None:
    """A dynamic tool declared on thread/start is run by the client over item/tool/call."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client, dynamicTools=[DYNAMIC_TOOL])
    mark = client.mark()
    await client.request("turn/start", {"threadId": thread_id, "input": text_input("ticket 7?")})
    call = await client.server_request("item/tool/call", after=mark)
    params = call["params"]
    await client.respond(
        call["id"], {"contentItems": [{"type": "inputText", "text": "open"}], "success": True}
    )
    await client.notification("turn/completed", after=mark)
    done = items(client.since(mark), "item/completed", "dynamicToolCall")
    shape = (
        (params["tool"], params["callId"], params["arguments"]),
        [(i["tool"], i["status"], i["success"]) for i in done],
    )
    expected = (("lookup_ticket", "call_dyn", {"id": 7}), [("lookup_ticket", "completed", True)])
    ctx.expect("tools.dynamic-tool-call", shape, expected, "item/tool/call and its item")


@case("mcp.status-list", requires=["mcp.status-list-empty"])
async def mcp_status(ctx: CaseContext) -> None:
    """With no MCP server configured the status list is empty."""
    client = await ctx.ready_client()
    result = await client.request("mcpServerStatus/list", {})
    ctx.expect("mcp.status-list-empty", (result["data"], result.get("nextCursor")), ([], None), "status list")


SLOW_SERVER = Path(__file__).resolve().parent.parent / "slow_mcp_server.py"
SLOW_START_S = 3


@case(
    "mcp.first-turn-tools",
    requires=["mcp.first-turn-waits", "mcp.first-turn-no-wait"],
    model=[script.reply(script.tool_search_call("lookup", "call_ts")), script.text_reply("ok")],
)
async def first_turn_tools(ctx: CaseContext) -> None:
    """A turn started while an MCP server is still starting: does its first model request wait?

    The model's first step searches the deferred MCP tools; what the search returns tells whether
    the server was ready when the request went out."""
    ctx.home.mkdir(parents=True, exist_ok=True)
    (ctx.home / "config.toml").write_text(
        "[mcp_servers.slow]\n"
        f"command = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(SLOW_SERVER))}, {json.dumps(str(SLOW_START_S))}]\n"
        "startup_timeout_sec = 30\n"
    )
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client)
    await ctx.run_turn(client, thread_id, "use the slow server's lookup tool")
    requests = ctx.model.requests
    found: list[tuple[str, list[str]]] = []
    if len(requests) > 1:
        for entry in requests[1].body.get("input", []):
            if entry.get("type") == "tool_search_output" and entry.get("call_id") == "call_ts":
                found = [(n["name"], [t["name"] for t in n["tools"]]) for n in entry["tools"]]
    ctx.expect("mcp.first-turn-waits", found, [("mcp__slow", ["lookup"])], "the first turn's search")
    ctx.expect("mcp.first-turn-no-wait", found, [], "the first turn's search")
