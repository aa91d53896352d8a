"""An MCP server's huge answer stays small for clients, the store and the model; an oversized
message from it is refused (real daemon over stdio, the fixture server as a real child process).

The attack: a tool answers megabytes. Each copy of it (the `item/completed` broadcast, the
stored item every `thread/resume` sends, the event log) used to carry it whole, twice over (its
text content and its structured content), past a client's 16 MiB frame limit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import StartServer
from tests.integration.tools_ext.mcp_support import items_of, run_turn, stdio_server, wait_status
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

MIB = 1024 * 1024


def _output(fake: FakeResponsesServer, call_id: str) -> str:
    for request in reversed(fake.requests):
        for item in request.body["input"]:
            if item.get("call_id") == call_id and item["type"] == "function_call_output":
                return str(item["output"])
    raise AssertionError(f"no output for {call_id}")


def _frame_bytes(message: dict[str, Any]) -> int:
    return len(json.dumps(message).encode())


def _store_bytes(home: Path) -> int:
    return sum(p.stat().st_size for p in home.glob("tether.sqlite*"))


async def test_a_huge_mcp_result_is_capped_for_clients_the_store_and_the_model(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    server = await start_server(*stdio_server("fx"))
    await wait_status(server, "fx", "connected")
    fake_model.add(
        script.reply(script.function_call("mcp__fx__huge", {"mib": 6}, "call_huge")),
        script.text_reply("That was long."),
    )
    thread_id = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    mark, turn = await run_turn(server, thread_id, "fetch the huge thing")
    assert turn["status"] == "completed"

    completed = next(
        m
        for m in server.since(mark)
        if m.get("method") == "item/completed" and m["params"]["item"]["type"] == "mcpToolCall"
    )
    assert _frame_bytes(completed) < 1.1 * MIB
    (item,) = items_of(server, mark, "item/completed", "mcpToolCall")
    assert item["status"] == "completed"
    (block,) = item["result"]["content"]
    text = block["text"]
    assert "FIRST" in text and "LAST" in text and "bytes truncated]" in text

    model_text = _output(fake_model, "call_huge")
    assert len(model_text.encode()) < 50_000 and "bytes truncated]" in model_text

    resumed = await server.call("thread/resume", {"threadId": thread_id})
    assert _frame_bytes(resumed) < 1.2 * MIB
    stored = [
        i for t in resumed["result"]["thread"]["turns"] for i in t["items"] if i["type"] == "mcpToolCall"
    ]
    assert stored and "bytes truncated]" in stored[0]["result"]["content"][0]["text"]
    assert _store_bytes(tmp_path / "home") < 8 * MIB


async def test_a_message_over_the_bound_fails_the_call_and_the_server_comes_back(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await start_server(*stdio_server("fx"))
    await wait_status(server, "fx", "connected")
    fake_model.add(
        script.reply(script.function_call("mcp__fx__huge", {"mib": 20}, "call_20")),
        script.text_reply("It was too big."),
        script.reply(script.function_call("mcp__fx__lookup", {"key": "k"}, "call_k")),
        script.text_reply("back"),
    )
    thread_id = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    mark, turn = await run_turn(server, thread_id, "fetch 20 MiB")
    assert turn["status"] == "completed"
    (item,) = items_of(server, mark, "item/completed", "mcpToolCall")
    assert item["status"] == "failed" and item["result"] is None
    assert "larger than 16 MiB" in item["error"]["message"]
    assert "larger than 16 MiB" in _output(fake_model, "call_20")
    assert all(_frame_bytes(m) < MIB for m in server.since(mark))

    reset = await server.notification(
        "mcpServer/startupStatus/updated", after=mark, where=lambda p: p["status"] == "failed"
    )
    assert "larger than 16 MiB" in reset["params"]["error"]
    await wait_status(server, "fx", "connected", after=mark)
    mark, turn = await run_turn(server, thread_id, "again")
    (item,) = items_of(server, mark, "item/completed", "mcpToolCall")
    assert item["status"] == "completed" and item["result"]["structuredContent"]["value"] == "K"
