"""Server requests that belong to one client reach that client only (two real clients, real sockets).

The attacks: a second client resumes a thread while its owner is connected, is re-sent the
owner's pending `item/tool/call` and answers it with its own content; a client calls an MCP tool
naming another client's thread, and the server's elicitation ("Enter your password…") is put to
that thread's user while the answer goes back to the caller.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.integration.tools_ext.mcp_support import stdio_server, wait_status
from tests.integration.transports.conftest import StartSocketServer
from tests.support.wsclient import WsClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

TOOL_CALL = "item/tool/call"
ELICITATION = "mcpServer/elicitation/request"
LOOKUP = {
    "type": "function",
    "name": "lookup_ticket",
    "description": "Fetch a support ticket by id.",
    "inputSchema": {"type": "object", "properties": {"id": {"type": "number"}}},
}


def _output(fake: FakeResponsesServer, call_id: str) -> str:
    for request in reversed(fake.requests):
        for item in request.body["input"]:
            if item.get("call_id") == call_id and item["type"] == "function_call_output":
                return str(item["output"])
    raise AssertionError(f"no output for {call_id}")


def _answer(text: str) -> dict[str, Any]:
    return {"contentItems": [{"type": "inputText", "text": text}], "success": True}


async def test_a_client_resuming_the_thread_cannot_answer_the_connected_owners_tool_call(
    socket_server: StartSocketServer, clients: list[WsClient], fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("lookup_ticket", {"id": 7}, "call_7")), script.text_reply("done")
    )
    server = await socket_server("--listen", "unix://", "--listen", "ws://127.0.0.1:0")
    owner, other = await server.connect_unix(), await server.connect_ws()
    clients += [owner, other]
    await owner.initialize(experimental=True)
    await other.initialize(experimental=True)
    started = await owner.request("thread/start", {"cwd": str(workdir), "dynamicTools": [LOOKUP]})
    thread_id = started["thread"]["id"]
    mark = owner.mark()
    await owner.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "go"}]})
    call = await owner.server_request(TOOL_CALL, after=mark)

    await other.request("thread/resume", {"threadId": thread_id})
    await other.request("thread/loaded/list", {})  # anything re-sent on resume has arrived by now
    assert not [m for m in other.messages if m.get("method") == TOOL_CALL]
    # Even with the id (it could not have seen it), the other client's answer is not taken.
    await other.respond(call["id"], _answer("forged by the other client"))
    await other.request("thread/loaded/list", {})
    await owner.respond(call["id"], _answer("ticket 7: open"))
    await owner.notification("turn/completed", after=mark)
    assert _output(fake_model, "call_7") == "ticket 7: open"

    # Once the owner has gone, a client that resumes the thread is the one to answer.
    fake_model.add(
        script.reply(script.function_call("lookup_ticket", {"id": 8}, "call_8")), script.text_reply("done")
    )
    mark = owner.mark()
    await owner.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "again"}]})
    await owner.server_request(TOOL_CALL, after=mark)
    await owner.close()
    handed = await other.server_request(TOOL_CALL)
    await other.respond(handed["id"], _answer("answered after the owner left"))
    await other.notification("turn/completed", after=other.messages.index(handed))
    assert _output(fake_model, "call_8") == "answered after the owner left"


async def test_a_direct_mcp_call_naming_another_clients_thread_asks_only_the_caller(
    socket_server: StartSocketServer, clients: list[WsClient], workdir: Path
) -> None:
    server = await socket_server("--listen", "unix://", "--listen", "ws://127.0.0.1:0", *stdio_server("fx"))
    owner, caller = await server.connect_unix(), await server.connect_ws()
    clients += [owner, caller]
    await owner.initialize()
    await caller.initialize()
    await wait_status(caller, "fx", "connected")
    thread_id = (await owner.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]

    params = {"threadId": thread_id, "server": "fx", "tool": "ask_color", "arguments": {}}
    call = asyncio.create_task(caller.request("mcpServer/tool/call", params, within_s=60))
    ask = await caller.server_request(ELICITATION)
    assert ask["params"]["threadId"] == thread_id and ask["params"]["message"] == "Which color?"
    await caller.respond(ask["id"], {"action": "accept", "content": {"color": "teal"}})
    result = await call
    assert result["content"][0]["text"] == "color=teal"
    await owner.request("thread/loaded/list", {})
    assert not [m for m in owner.messages if m.get("method") == ELICITATION]
    resolved = [m for m in caller.messages if m.get("method") == "serverRequest/resolved"]
    assert [m["params"]["requestId"] for m in resolved] == [ask["id"]]
