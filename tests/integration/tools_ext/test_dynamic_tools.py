"""Dynamic tools: declared on thread/start by a client, run by it over item/tool/call (in process)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.appserver import mock_provider_args
from tests.support.memory import MemoryClient
from tether_server.app import App
from tether_server.config import load_config
from tether_server.store.memory import MemoryThreadStore
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

Connect = Callable[[], Awaitable[MemoryClient]]
TOOLS = [
    {
        "type": "function",
        "name": "lookup_ticket",
        "description": "Fetch a support ticket by id.",
        "inputSchema": {"type": "object", "properties": {"id": {"type": "number"}}, "required": ["id"]},
    },
    {
        "type": "namespace",
        "name": "crm",
        "description": "The CRM.",
        "tools": [
            {
                "type": "function",
                "name": "find",
                "description": "Find a customer.",
                "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
            }
        ],
    },
]


@pytest.fixture
async def connect(tmp_path: Path, fake_model: FakeResponsesServer) -> AsyncIterator[Connect]:
    args = mock_provider_args(fake_model.base_url)
    overrides = [v for f, v in zip(args[::2], args[1::2], strict=True) if f == "-c"]
    overrides.append("tether.dynamic_tool_timeout_sec=3")
    store = MemoryThreadStore()
    app = App(load_config(tmp_path / "home", overrides), tmp_path / "home", store_factory=lambda _h: store)
    dispatcher = await app.start()
    clients: list[MemoryClient] = []

    async def open_client() -> MemoryClient:
        client = MemoryClient(dispatcher)
        clients.append(client)
        await client.initialize(experimental=True)
        return client

    yield open_client
    for client in clients:
        if not client.ended():
            await client.close()
    for client in clients:
        client.check()
    await app.close()


async def _start(client: MemoryClient, workdir: Path) -> str:
    result = await client.request("thread/start", {"cwd": str(workdir), "dynamicTools": TOOLS})
    return str(result["thread"]["id"])


async def _begin_turn(client: MemoryClient, thread_id: str) -> int:
    mark = client.mark()
    await client.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "go"}]})
    return mark


def _output(fake: FakeResponsesServer, call_id: str) -> str:
    for request in reversed(fake.requests):
        for item in request.body["input"]:
            if item.get("call_id") == call_id and item["type"] == "function_call_output":
                return str(item["output"])
    raise AssertionError(f"no output for {call_id}")


def _dynamic_items(client: MemoryClient, mark: int) -> list[dict[str, Any]]:
    return [
        m["params"]["item"]
        for m in client.since(mark)
        if m.get("method") == "item/completed" and m["params"]["item"]["type"] == "dynamicToolCall"
    ]


async def test_declared_tools_reach_the_model_and_the_owner_answers_the_call(
    connect: Connect, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(
            script.function_call("lookup_ticket", {"id": 7}, "call_t"),
            script.function_call("crm__find", {"q": "ada"}, "call_c"),
        ),
        script.text_reply("Ticket 7 is open; Ada is a customer."),
    )
    owner = await connect()
    thread_id = await _start(owner, workdir)
    mark = await _begin_turn(owner, thread_id)
    seen = mark
    for expected_tool, text in (("lookup_ticket", "ticket 7: open"), ("find", "ada: customer")):
        call = await owner.server_request("item/tool/call", after=seen)
        seen = owner.mark()
        params = call["params"]
        assert params["threadId"] == thread_id and params["tool"] == expected_tool
        assert params["namespace"] == (None if expected_tool == "lookup_ticket" else "crm")
        await owner.respond(
            call["id"], {"contentItems": [{"type": "inputText", "text": text}], "success": True}
        )
    await owner.notification("turn/completed", after=mark)
    tools = [t.get("name") for t in fake_model.requests[0].body["tools"]]
    assert tools[-2:] == ["lookup_ticket", "crm__find"]
    items = _dynamic_items(owner, mark)
    assert [(i["tool"], i["status"], i["success"]) for i in items] == [
        ("lookup_ticket", "completed", True),
        ("find", "completed", True),
    ]
    assert items[0]["arguments"] == {"id": 7} and items[0]["contentItems"][0]["text"] == "ticket 7: open"
    assert _output(fake_model, "call_t") == "ticket 7: open"
    assert _output(fake_model, "call_c") == "ada: customer"


async def test_when_the_owner_leaves_another_subscriber_answers(
    connect: Connect, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("lookup_ticket", {"id": 9}, "call_9")), script.text_reply("done")
    )
    owner = await connect()
    other = await connect()
    thread_id = await _start(owner, workdir)
    await other.request("thread/resume", {"threadId": thread_id})
    mark_other = other.mark()
    mark = await _begin_turn(owner, thread_id)
    first = await owner.server_request("item/tool/call", after=mark)
    await owner.close()  # the owner goes away without answering
    handed = await other.server_request("item/tool/call", after=mark_other)
    assert handed["id"] == first["id"]
    await other.respond(
        handed["id"], {"contentItems": [{"type": "inputText", "text": "from other"}], "success": True}
    )
    await other.notification("turn/completed", after=mark_other)
    (item,) = _dynamic_items(other, mark_other)
    assert item["status"] == "completed" and item["contentItems"][0]["text"] == "from other"
    assert _output(fake_model, "call_9") == "from other"


async def test_a_client_that_subscribes_after_the_owner_left_gets_the_call(
    connect: Connect, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("lookup_ticket", {"id": 3}, "call_3")), script.text_reply("done")
    )
    owner = await connect()
    late = await connect()
    thread_id = await _start(owner, workdir)
    mark = await _begin_turn(owner, thread_id)
    first = await owner.server_request("item/tool/call", after=mark)
    await owner.close()
    mark_late = late.mark()
    await late.request("thread/resume", {"threadId": thread_id})
    handed = await late.server_request("item/tool/call", after=mark_late)
    assert handed["id"] == first["id"]
    await late.respond(
        handed["id"], {"contentItems": [{"type": "inputText", "text": "late"}], "success": True}
    )
    await late.notification("turn/completed", after=mark_late)
    assert _output(fake_model, "call_3") == "late"


async def test_when_nobody_can_answer_the_call_fails_and_the_model_is_told(
    connect: Connect, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("lookup_ticket", {"id": 1}, "call_1")), script.text_reply("gave up")
    )
    owner = await connect()
    watcher = await connect()
    thread_id = await _start(owner, workdir)
    mark = await _begin_turn(owner, thread_id)
    await owner.server_request("item/tool/call", after=mark)
    await owner.close()
    # The turn goes on: the model's next request carries the failure.
    await fake_model.wait_for_request(2, within_s=20)
    await watcher.request("thread/resume", {"threadId": thread_id})
    await watcher.notification("thread/status/changed", where=lambda p: p["status"]["type"] == "idle")
    assert "no client answered within 3s" in _output(fake_model, "call_1")
    read = await watcher.request("thread/read", {"threadId": thread_id, "includeTurns": True})
    items = [i for t in read["thread"]["turns"] for i in t["items"] if i["type"] == "dynamicToolCall"]
    assert items and items[0]["status"] == "failed" and items[0]["success"] is False


async def test_malformed_dynamic_tools_are_refused_and_create_no_thread(
    connect: Connect, workdir: Path
) -> None:
    client = await connect()
    bad = [{"type": "function", "name": "x", "description": "no schema"}]
    reply = await client.call("thread/start", {"cwd": str(workdir), "dynamicTools": bad})
    assert reply["error"]["code"] == -32602 and "inputSchema" in reply["error"]["message"]
    assert (await client.request("thread/loaded/list", {}))["data"] == []
