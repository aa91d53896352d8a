"""The tools the model is offered, against what Codex 0.169.0 sent the same fake model
(`codex_facts/model_tools.json`: names, types, schemas and order; descriptions are each side's own)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import StartServer
from tests.integration.tools_ext.mcp_support import items_of, run_turn, stdio_server, wait_status
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

FACTS = json.loads((Path(__file__).parent / "codex_facts" / "model_tools.json").read_text())
README = {
    "server": "fx",
    "uri": "fixture://readme",
    "name": "readme",
    "description": "The fixture's readme.",
    "mimeType": "text/plain",
}


def _shape(value: Any) -> Any:
    """A definition without its prose (descriptions, the apply_patch grammar), as the facts keep it."""
    if isinstance(value, list):
        return [_shape(v) for v in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, member in value.items():
        if (key == "description" and isinstance(member, str)) or (
            key == "format" and value.get("type") == "custom"
        ):
            continue
        if key == "properties" and isinstance(member, dict):
            out[key] = {name: _shape(p) for name, p in member.items()}
        else:
            out[key] = _shape(member)
    return out


def _name(tool: dict[str, Any]) -> str:
    return str(tool.get("name", tool["type"]))


async def _first_request_tools(
    start_server: StartServer, fake: FakeResponsesServer, workdir: Path, *config: str
) -> list[dict[str, Any]]:
    server = await start_server(*config)
    if any(c.startswith("mcp_servers.") for c in config):
        await wait_status(server, "fx", "connected")
    fake.add(script.text_reply("ok"))
    thread = await server.request("thread/start", {"cwd": str(workdir)})
    await run_turn(server, thread["thread"]["id"], "hi")
    return list(fake.requests[0].body["tools"])


async def test_the_default_tools_are_codexs_with_web_search_as_configured(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    tools = await _first_request_tools(start_server, fake_model, workdir, "-c", 'web_search="cached"')
    # Same names, order, members and schemas: the sandbox_permissions enum, request_user_input
    # before apply_patch, no update_plan, Codex's client-run tool_search, the hosted search last.
    assert _shape(tools) == FACTS["default"]


async def test_without_web_search_configured_only_the_hosted_tool_is_left_out(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    # Codex's default is "cached"; Tether's stays "disabled" (docs/protocol.md).
    tools = await _first_request_tools(start_server, fake_model, workdir)
    assert _shape(tools) == [t for t in FACTS["default"] if t["type"] != "web_search"]


async def test_mcp_tools_are_deferred_behind_tool_search_as_codex_defers_them(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    tools = await _first_request_tools(
        start_server, fake_model, workdir, *stdio_server("fx"), "-c", 'web_search="cached"'
    )
    # The MCP resource tools come with a configured server, between write_stdin and request_user_input.
    assert _shape(tools) == FACTS["mcp"]
    assert not [t for t in tools if _name(t).startswith("mcp__")]


async def test_tool_search_answers_as_codex_and_a_found_tool_is_called_in_its_namespace(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await start_server(*stdio_server("fx"))
    await wait_status(server, "fx", "connected")
    queries = list(FACTS["search"])
    fake_model.add(
        script.reply(*(script.tool_search_call(q, f"call_q{i}") for i, q in enumerate(queries))),
        script.reply(script.function_call("lookup", {"key": "abc"}, "call_lk", namespace="mcp__fx")),
        script.text_reply("done"),
    )
    thread = await server.request("thread/start", {"cwd": str(workdir)})
    mark, turn = await run_turn(server, thread["thread"]["id"], "find a lookup tool and look abc up")
    assert turn["status"] == "completed"

    second = fake_model.requests[1].body["input"]
    outputs = {i["call_id"]: i for i in second if i["type"] == "tool_search_output"}
    for index, query in enumerate(queries):
        expected = {**FACTS["search"][query], "call_id": f"call_q{index}"}
        assert outputs[f"call_q{index}"] == expected, query
    # The search call goes back as it came, and the tool list never changes.
    calls = [i for i in second if i["type"] == "tool_search_call"]
    assert [c["arguments"] for c in calls] == [{"query": q} for q in queries]
    assert fake_model.requests[1].body["tools"] == fake_model.requests[0].body["tools"]

    # Codex shows no item for a search; the namespaced call is an mcpToolCall of the server's tool.
    completed = [m["params"]["item"] for m in server.since(mark) if m.get("method") == "item/completed"]
    assert [i["type"] for i in completed] == ["userMessage", "mcpToolCall", "agentMessage"]
    (item,) = items_of(server, mark, "item/completed", "mcpToolCall")
    assert (item["id"], item["server"], item["tool"], item["status"]) == (
        "call_lk",
        "fx",
        "lookup",
        "completed",
    )
    (output,) = [
        i for i in fake_model.requests[2].body["input"] if i.get("call_id") == "call_lk" and "output" in i
    ]
    assert '"value": "ABC"' in output["output"]


async def test_the_resource_tools_answer_as_codex(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await start_server(*stdio_server("fx"))
    await wait_status(server, "fx", "connected")
    calls = [
        ("c1", "list_mcp_resources", {}),
        ("c2", "list_mcp_resources", {"server": "fx"}),
        ("c3", "list_mcp_resource_templates", {}),
        ("c4", "read_mcp_resource", {"server": "fx", "uri": "fixture://readme"}),
        ("c5", "read_mcp_resource", {"server": "nope", "uri": "x://y"}),
        ("c6", "list_mcp_resources", {"server": "nope"}),
        ("c7", "read_mcp_resource", {"server": "fx", "uri": "fixture://missing"}),
    ]
    fake_model.add(
        script.reply(*(script.function_call(name, args, cid) for cid, name, args in calls)),
        script.text_reply("done"),
    )
    thread = await server.request("thread/start", {"cwd": str(workdir), "approvalPolicy": "never"})
    mark, turn = await run_turn(server, thread["thread"]["id"], "what resources are there?")
    assert turn["status"] == "completed"
    outputs = {
        i["call_id"]: i["output"]
        for i in fake_model.requests[1].body["input"]
        if i["type"] == "function_call_output"
    }
    # Codex 0.169.0's outputs for the same calls (the missing resource's error comes from the server).
    assert json.loads(outputs["c1"]) == {"resources": [README]}
    assert json.loads(outputs["c2"]) == {"server": "fx", "resources": [README]}
    assert json.loads(outputs["c3"]) == {"resourceTemplates": []}
    assert json.loads(outputs["c4"]) == {
        "server": "fx",
        "uri": "fixture://readme",
        "contents": [{"uri": "fixture://readme", "mimeType": "text/plain", "text": "fixture readme"}],
    }
    assert outputs["c5"] == outputs["c6"] == "unknown MCP server 'nope'"
    assert outputs["c7"].startswith(
        "resources/read failed: resources/read failed for `fx` (fixture://missing): "
    )
    assert "Unknown resource: fixture://missing" in outputs["c7"]

    # As Codex: an mcpToolCall item per call to a known server, `codex` when a list names none.
    done = {i["id"]: i for i in items_of(server, mark, "item/completed", "mcpToolCall")}
    assert sorted(done) == ["c1", "c2", "c3", "c4", "c7"]
    assert [(done[c]["server"], done[c]["tool"], done[c]["status"]) for c in sorted(done)] == [
        ("codex", "list_mcp_resources", "completed"),
        ("fx", "list_mcp_resources", "completed"),
        ("codex", "list_mcp_resource_templates", "completed"),
        ("fx", "read_mcp_resource", "completed"),
        ("fx", "read_mcp_resource", "failed"),
    ]
    assert done["c3"]["result"] == {
        "content": [{"type": "text", "text": '{"resourceTemplates":[]}'}],
        "structuredContent": None,
        "_meta": None,
    }
    assert done["c7"]["error"]["message"] == outputs["c7"]
