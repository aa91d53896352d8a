"""The same client-visible behaviour over stdio, the control socket and WebSocket."""

from __future__ import annotations

from pathlib import Path

from tests.integration.transports.conftest import Connect
from tests.support.rpcclient import methods
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


async def test_initialize_answers_with_the_user_agent_and_home(connect: Connect) -> None:
    client = await connect()
    reply = await client.call("initialize", {"clientInfo": {"name": "again", "title": None, "version": "1"}})
    assert reply["error"]["message"] == "Already initialized"


async def test_a_thread_streams_a_turn_to_its_client(
    connect: Connect, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("Hello over any transport.", deltas=4))
    client = await connect()
    thread_id = (await client.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    mark = client.mark()
    await client.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]})
    done = await client.notification("turn/completed", after=mark)

    assert done["params"]["turn"]["status"] == "completed"
    deltas = [
        m["params"]["delta"] for m in client.since(mark) if m.get("method") == "item/agentMessage/delta"
    ]
    assert "".join(deltas) == "Hello over any transport."
    assert methods(client.since(mark)).count("item/agentMessage/delta") == 4


async def test_errors_are_answered_with_their_codes(connect: Connect) -> None:
    client = await connect()
    unknown = await client.call("thread/frobnicate", {})
    bad_params = await client.call("thread/read", {"threadId": 7})
    missing = await client.call("thread/read", {"threadId": "00000000-0000-0000-0000-000000000000"})

    assert unknown["error"]["code"] == -32601
    assert bad_params["error"]["code"] == -32602
    assert missing["error"]["code"] == -32600


async def test_garbage_gets_a_parse_error_and_the_connection_keeps_working(connect: Connect) -> None:
    client = await connect()
    mark = client.mark()
    await client.send_raw(b"{not json\n")
    parse_error = await client.wait_for(lambda m: "error" in m, after=mark)
    reply = await client.call("thread/loaded/list", {})

    assert parse_error == {"id": None, "error": {"code": -32700, "message": "Parse error: invalid JSON"}}
    assert "result" in reply
