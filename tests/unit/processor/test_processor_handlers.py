"""Processor handlers served in process: typed answers, the work that follows them, one frame each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.memory import MemoryClient
from tests.unit.processor.conftest import Connect

from tether_protocol import methods as m
from tether_protocol.methods import CLIENT_METHODS
from tether_server.app import App
from tether_server.processor.handlers import UNIMPLEMENTED, build_routes
from tether_server.rpc.routes import check_routes
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


def _only_frame(client: MemoryClient, request_id: object) -> dict[str, Any]:
    (frame,) = [x for x in client.messages if "method" not in x and x.get("id") == request_id]
    return frame


async def test_every_method_of_the_table_has_its_handler_and_every_handler_its_method(
    app: App, connect: Connect
) -> None:
    await connect()
    assert app.running is not None
    routes = build_routes(app.running.state)
    check_routes(CLIENT_METHODS, routes, UNIMPLEMENTED)
    assert set(routes) | UNIMPLEMENTED == set(CLIENT_METHODS)
    assert all(routes[name].spec is CLIENT_METHODS[name] for name in routes)


async def test_thread_start_answers_then_announces_the_same_thread_to_everyone(
    connect: Connect, workdir: Path
) -> None:
    starter, other = await connect(), await connect()
    mark = starter.mark()
    reply = await starter.call("thread/start", {"cwd": str(workdir)}, request_id="s")
    thread = m.THREAD_START.result.model_validate(reply["result"]).thread
    started = await starter.notification("thread/started", after=mark)
    assert [x.get("id", x.get("method")) for x in starter.since(mark)][:2] == ["s", "thread/started"]
    assert started["params"]["thread"] == reply["result"]["thread"]
    assert (await other.notification("thread/started"))["params"]["thread"]["id"] == thread.id
    assert thread.cwd == str(workdir) and thread.status.type == "idle"
    assert reply["result"]["thread"]["environments"][0]["cwd"] == str(workdir)


async def test_a_turn_runs_in_process_and_reads_back_as_typed_turns(
    connect: Connect, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("hello back"))
    client = await connect()
    thread_id = (await client.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    mark = client.mark()
    started = await client.request(
        "turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]}
    )
    done = await client.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["id"] == started["turn"]["id"]
    read = await client.request("thread/read", {"threadId": thread_id, "includeTurns": True})
    (turn,) = m.THREAD_READ.result.model_validate(read).thread.turns
    assert [item.type for item in turn.items] == ["userMessage", "agentMessage"]
    assert isinstance(read["readState"]["revision"], str)  # markers: test_workspace_methods.py
    items = await client.request("thread/items/list", {"threadId": thread_id})
    assert [entry["item"]["type"] for entry in items["data"]] == ["userMessage", "agentMessage"]


async def test_resume_after_seq_answers_first_then_replays_what_was_missed(
    connect: Connect, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("one"))
    first = await connect()
    thread_id = (await first.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    mark = first.mark()
    await first.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]})
    await first.notification("turn/completed", after=mark)
    live = [x for x in first.since(mark) if "seq" in x]
    late = await connect()
    mark = late.mark()
    await late.request("thread/resume", {"threadId": thread_id, "afterSeq": 0}, request_id="r")
    await late.notification("turn/completed", after=mark)
    after = late.since(mark)
    answered_at = next(i for i, x in enumerate(after) if x.get("id") == "r")
    assert answered_at < next(i for i, x in enumerate(after) if x.get("method") == "turn/started")
    replayed = [x["seq"] for x in after if "seq" in x]
    assert replayed == sorted(set(replayed))
    assert {x["seq"] for x in live} <= set(replayed)


async def test_renaming_answers_before_the_broadcast_and_an_empty_name_changes_nothing(
    connect: Connect, workdir: Path
) -> None:
    client, watcher = await connect(), await connect()
    thread_id = (await client.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    refused = await client.call("thread/name/set", {"threadId": thread_id, "name": "  "}, request_id="bad")
    assert refused["error"] == {"code": -32600, "message": "thread name must not be empty"}
    mark = client.mark()
    assert (
        await client.request("thread/name/set", {"threadId": thread_id, "name": "Plans"}, request_id="ok")
        == {}
    )
    updated = await client.notification("thread/name/updated", after=mark)
    assert client.since(mark)[0]["id"] == "ok"
    assert updated["params"] == {"threadId": thread_id, "threadName": "Plans"}
    assert (await watcher.notification("thread/name/updated"))["params"]["threadName"] == "Plans"
    assert _only_frame(client, "bad") == refused


async def test_command_exec_answers_once_when_the_process_has_exited(connect: Connect, workdir: Path) -> None:
    client = await connect()
    params = {
        "command": ["sh", "-c", "printf out; printf err >&2; exit 3"],
        "cwd": str(workdir),
        "sandboxPolicy": {"type": "dangerFullAccess"},
    }
    result = await client.request("command/exec", params, request_id="x")
    assert result == {"exitCode": 3, "stdout": "out", "stderr": "err"}
    await client.request("thread/loaded/list", {})
    assert _only_frame(client, "x") == {"id": "x", "result": result}


async def test_command_exec_follow_ups_for_an_unknown_process_are_refused(connect: Connect) -> None:
    client = await connect()
    reply = await client.call("command/exec/terminate", {"processId": "nope"})
    assert reply["error"] == {"code": -32600, "message": 'no active command/exec for process id "nope"'}
