"""MCP tool approvals follow the approval policy, the per-tool mode and the auto reviewer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import StartServer
from tests.integration.tools_ext.mcp_support import items_of, run_turn, stdio_server, wait_status
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


def _verdict(outcome: str) -> dict[str, Any]:
    answer = {"outcome": outcome, "risk_level": "high", "rationale": f"reviewer says {outcome}"}
    return script.text_reply(json.dumps(answer), deltas=1)


async def test_the_auto_reviewer_decides_a_destructive_call_instead_of_the_client(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    log = tmp_path / "calls.log"
    server = await start_server(*stdio_server("fx", "--log", str(log)))
    await wait_status(server, "fx", "connected")
    fake_model.add(
        script.reply(script.function_call("mcp__fx__wipe", {"target": "prod"}, "call_w")),
        _verdict("deny"),
        script.text_reply("The reviewer refused."),
    )
    started = await server.request("thread/start", {"cwd": str(workdir), "approvalsReviewer": "auto_review"})
    mark, turn = await run_turn(server, started["thread"]["id"], "wipe prod")
    assert turn["status"] == "completed"
    assert not [m for m in server.since(mark) if m.get("method") == "mcpServer/elicitation/request"]
    review = next(m for m in server.since(mark) if m.get("method") == "item/autoApprovalReview/completed")
    assert review["params"]["review"]["status"] == "denied"
    assert review["params"]["action"] == {
        "type": "mcpToolCall",
        "server": "fx",
        "toolName": "wipe",
        "toolTitle": None,
    }
    assert "MCP server fx" in json.dumps(fake_model.requests[1].body["input"])
    (item,) = items_of(server, mark, "item/completed", "mcpToolCall")
    assert item["status"] == "failed"
    assert not log.exists()


async def test_policy_never_and_an_approve_mode_run_without_asking_a_prompt_mode_asks(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    log = tmp_path / "calls.log"
    server = await start_server(
        *stdio_server("fx", "--log", str(log)), "-c", 'mcp_servers.fx.tools.lookup.approval_mode="prompt"'
    )
    await wait_status(server, "fx", "connected")
    fake_model.add(
        script.reply(script.function_call("mcp__fx__wipe", {"target": "a"}, "call_a")),
        script.text_reply("wiped"),
        script.reply(script.function_call("mcp__fx__lookup", {"key": "b"}, "call_b")),
        script.text_reply("looked up"),
    )
    never = await server.request("thread/start", {"cwd": str(workdir), "approvalPolicy": "never"})
    mark, _turn = await run_turn(server, never["thread"]["id"], "wipe a")
    assert not [m for m in server.since(mark) if m.get("method") == "mcpServer/elicitation/request"]
    asking = await server.request("thread/start", {"cwd": str(workdir)})
    mark = server.mark()
    params = {"threadId": asking["thread"]["id"], "input": [{"type": "text", "text": "look b up"}]}
    await server.request("turn/start", params)
    # `lookup` is read-only, but its mode says to ask.
    ask = await server.server_request("mcpServer/elicitation/request", after=mark)
    assert ask["params"]["_meta"]["tool_name"] == "lookup"
    await server.respond(ask["id"], {"action": "accept", "content": None})
    await server.notification("turn/completed", after=mark, within_s=60)
    assert log.read_text() == "wipe a\nlookup b\n"
