"""Tool call items are named by the model's call id, as in Codex 0.169.0, but never twice in a thread.

Observed on Codex 0.169.0 with a model that sends `call_1` for every call (a command, a patch and an
MCP call in each of two turns): every `commandExecution`, `fileChange` and `mcpToolCall` item is
`call_1`, and `thread/read` then shows one item per turn (the MCP call): the others are gone. Tether
names an item by its call id the first time the thread sees it and gives a repeated one a fresh id;
the model still gets each output under its own call id.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import StartServer
from tests.integration.tools_ext.mcp_support import stdio_server, wait_status
from tests.support.rpcclient import RpcClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

PATCH = "*** Begin Patch\n*** Add File: {name}\n+hi\n*** End Patch\n"
TOOL_ITEMS = ("commandExecution", "fileChange", "mcpToolCall")


def _calls(turn: int, *, escalate: bool = False) -> list[dict[str, Any]]:
    command: dict[str, Any] = {"cmd": f"echo turn{turn}"}
    if escalate:
        command["sandbox_permissions"] = "require_escalated"
    return [
        script.reply(script.function_call("exec_command", command, "call_1")),
        script.reply(script.custom_tool_call("apply_patch", PATCH.format(name=f"f{turn}.txt"), "call_1")),
        script.reply(script.function_call("lookup", {"key": f"k{turn}"}, "call_1", namespace="mcp__fx")),
        script.text_reply(f"done {turn}"),
    ]


async def _turn(server: RpcClient, thread_id: str, text: str, approve: bool = False) -> list[dict[str, Any]]:
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": text}]})
    if approve:
        asked = await server.server_request("item/commandExecution/requestApproval", after=mark)
        await server.respond(asked["id"], {"decision": "accept"})
    await server.notification("turn/completed", after=mark)
    return server.since(mark)


def _tool_items(turn: dict[str, Any]) -> list[tuple[str, str]]:
    return [(i["type"], i["id"]) for i in turn["items"] if i["type"] in TOOL_ITEMS]


async def test_a_repeated_call_id_never_takes_over_an_earlier_item(
    tmp_path: Path, start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    home = tmp_path / "home"
    server = await start_server(*stdio_server("fx", default_tools_approval_mode="approve"), home=home)
    await wait_status(server, "fx", "connected")
    fake_model.add(*_calls(0), *_calls(1, escalate=True))
    thread = await server.request(
        "thread/start", {"cwd": str(workdir), "approvalPolicy": "on-request", "sandbox": "workspace-write"}
    )
    thread_id = thread["thread"]["id"]
    first = await _turn(server, thread_id, "one")
    second = await _turn(server, thread_id, "two", approve=True)

    read = await server.request("thread/read", {"threadId": thread_id, "includeTurns": True})
    turns = read["thread"]["turns"]
    shown = [_tool_items(t) for t in turns]
    assert [[kind for kind, _ in items] for items in shown] == [list(TOOL_ITEMS), list(TOOL_ITEMS)]
    ids = [item_id for items in shown for _, item_id in items]
    assert len(set(ids)) == 6
    # The first call of the thread keeps its call id, as Codex names it.
    assert shown[0][0] == ("commandExecution", "call_1")
    assert [i["aggregatedOutput"] for t in turns for i in t["items"] if i["type"] == "commandExecution"] == [
        "turn0\n",
        "turn1\n",
    ]

    # Live events and the approval name the same items thread/read shows.
    for messages, items in zip((first, second), shown, strict=True):
        started = [
            (m["params"]["item"]["type"], m["params"]["item"]["id"])
            for m in messages
            if m.get("method") == "item/started" and m["params"]["item"]["type"] in TOOL_ITEMS
        ]
        assert started == items
    (asked,) = [m for m in second if m.get("method") == "item/commandExecution/requestApproval"]
    assert asked["params"]["itemId"] == shown[1][0][1]

    # The model gets every output under the call id it sent.
    last = fake_model.requests[-1].body["input"]
    outputs = [i for i in last if i["type"] in ("function_call_output", "custom_tool_call_output")]
    assert [o["call_id"] for o in outputs] == ["call_1"] * 6
    assert "turn1" in str(outputs[3]["output"])
    await server.close()

    again = await start_server(home=home)
    reread = await again.request("thread/read", {"threadId": thread_id, "includeTurns": True})
    assert [_tool_items(t) for t in reread["thread"]["turns"]] == shown


async def test_after_a_restart_the_resumed_thread_still_knows_its_call_ids_and_history(
    tmp_path: Path, start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    # The loaded history is parsed when a turn first needs it: the ids of the calls made before
    # the restart and what the model was told then must be there all the same.
    home = tmp_path / "home"
    server = await start_server(home=home)
    thread = await server.request("thread/start", {"cwd": str(workdir), "sandbox": "workspace-write"})
    thread_id = thread["thread"]["id"]
    fake_model.add(script.reply(script.function_call("exec_command", {"cmd": "echo before"}, "call_1")))
    fake_model.add(script.text_reply("done before"))
    await _turn(server, thread_id, "one")
    await server.close()

    again = await start_server(home=home)
    await again.request("thread/resume", {"threadId": thread_id})
    fake_model.add(script.reply(script.function_call("exec_command", {"cmd": "echo after"}, "call_1")))
    fake_model.add(script.text_reply("done after"))
    await _turn(again, thread_id, "two")

    read = await again.request("thread/read", {"threadId": thread_id, "includeTurns": True})
    ids = [i["id"] for t in read["thread"]["turns"] for i in t["items"] if i["type"] == "commandExecution"]
    assert ids[0] == "call_1" and len(set(ids)) == 2
    sent = fake_model.requests[-1].body["input"]
    outputs = [str(i["output"]) for i in sent if i["type"] == "function_call_output"]
    assert "before" in outputs[0] and "after" in outputs[1]
    assert any("done before" in str(i.get("content")) for i in sent if i.get("role") == "assistant")
