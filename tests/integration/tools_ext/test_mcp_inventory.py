"""MCP elicitations, a large inventory behind tool search, output caps and reload."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import StartServer
from tests.integration.tools_ext.mcp_support import FIXTURE, items_of, run_turn, stdio_server, wait_status
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


def _output(fake: FakeResponsesServer, call_id: str) -> str:
    for request in reversed(fake.requests):
        for item in request.body["input"]:
            if item.get("call_id") == call_id and item["type"] == "function_call_output":
                return str(item["output"])
    raise AssertionError(f"no output for {call_id}")


async def test_an_elicitation_is_answered_by_a_client_and_one_times_out(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await start_server(*stdio_server("fx", elicitation_timeout_sec=1))
    await wait_status(server, "fx", "connected")
    fake_model.add(
        script.reply(script.function_call("mcp__fx__ask_color", {}, "call_1")),
        script.text_reply("blue it is"),
        script.reply(script.function_call("mcp__fx__ask_color", {}, "call_2")),
        script.text_reply("no answer"),
    )
    thread_id = str((await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"])

    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "color?"}]})
    ask = await server.server_request("mcpServer/elicitation/request", after=mark)
    params = ask["params"]
    assert params["message"] == "Which color?" and params["serverName"] == "fx"
    assert params["turnId"] and params["threadId"] == thread_id
    assert params["requestedSchema"]["properties"]["color"]["type"] == "string"
    await server.respond(ask["id"], {"action": "accept", "content": {"color": "blue"}})
    await server.notification("turn/completed", after=mark, within_s=60)
    (item,) = items_of(server, mark, "item/completed", "mcpToolCall")
    assert item["status"] == "completed"
    assert "color=blue" in json.dumps(item["result"]) and "color=blue" in _output(fake_model, "call_1")

    # Nobody answers the second: it is cancelled after the timeout and the request cleared.
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "again"}]})
    ask = await server.server_request("mcpServer/elicitation/request", after=mark)
    await server.notification(
        "serverRequest/resolved", after=mark, where=lambda p: p.get("requestId") == ask["id"]
    )
    await server.notification("turn/completed", after=mark, within_s=60)
    (item,) = items_of(server, mark, "item/completed", "mcpToolCall")
    assert "no color (cancel)" in _output(fake_model, "call_2")


async def test_a_500_tool_inventory_is_found_through_tool_search(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await start_server(*stdio_server("fx", "--tools", "500", default_tools_approval_mode="approve"))
    status = await wait_status(server, "fx", "connected")
    assert len(status["tools"]) == 506  # 500 generated, 6 of the fixture
    fake_model.add(
        script.reply(script.tool_search_call("topic123", "call_s")),
        script.reply(script.function_call("gen_0123", {"n": 5}, "call_g", namespace="mcp__fx")),
        script.text_reply("found and called"),
    )
    thread_id = str((await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"])
    mark, turn = await run_turn(server, thread_id, "use topic123")
    assert turn["status"] == "completed"
    tools = fake_model.requests[0].body["tools"]
    assert {"type": "tool_search", "execution": "client"}.items() <= tools[-1].items()
    assert not [t for t in tools if str(t.get("name", "")).startswith("mcp__")]
    (output,) = [i for i in fake_model.requests[1].body["input"] if i["type"] == "tool_search_output"]
    (namespace,) = output["tools"]
    found = namespace["tools"][0]
    assert (
        namespace["name"] == "mcp__fx"
        and found["name"] == "gen_0123"
        and found["parameters"]["properties"]["n"]
    )
    assert "generated 123 got 5" in _output(fake_model, "call_g")
    (item,) = items_of(server, mark, "item/completed", "mcpToolCall")
    assert item["tool"] == "gen_0123" and item["status"] == "completed"
    # The same inventory gives byte-identical tool definitions on the next request.
    assert fake_model.requests[1].body["tools"] == tools


async def test_a_huge_result_reaches_the_model_truncated_with_a_marker(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await start_server(*stdio_server("fx"))
    await wait_status(server, "fx", "connected")
    fake_model.add(script.reply(script.function_call("mcp__fx__big", {}, "call_b")), script.text_reply("ok"))
    thread_id = str((await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"])
    await run_turn(server, thread_id, "big")
    out = _output(fake_model, "call_b")
    assert "bytes truncated]" in out and len(out.encode()) < 45_000


async def test_reload_picks_up_a_server_added_to_config_toml(
    start_server: StartServer, fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    server = await start_server(home=home)
    assert (await server.request("mcpServerStatus/list", {}))["data"] == []
    (home / "config.toml").write_text(
        f"[mcp_servers.later]\ncommand = {json.dumps(__import__('sys').executable)}\n"
        f"args = [{json.dumps(str(FIXTURE))}]\n"
    )
    mark = server.mark()
    assert await server.request("config/mcpServer/reload", None) == {}
    status = await wait_status(server, "later", "connected", after=mark)
    assert "lookup" in status["tools"]
