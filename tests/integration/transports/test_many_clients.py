"""Many clients on one daemon: fan-out of one thread's turn, a slow reader, and a request flood."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.integration.transports.conftest import StartSocketServer
from tests.support.rpcclient import methods
from tests.support.wsclient import SocketServer, WsClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

TURN = "turn/start"


async def _materialised_thread(client: WsClient, fake_model: FakeResponsesServer, cwd: Path) -> str:
    """A thread with one finished turn, so that other clients can `thread/resume` it."""
    fake_model.add(script.text_reply("first"))
    thread_id: str = (await client.request("thread/start", {"cwd": str(cwd)}))["thread"]["id"]
    mark = client.mark()
    await client.request(TURN, {"threadId": thread_id, "input": [{"type": "text", "text": "one"}]})
    await client.notification("turn/completed", after=mark)
    return thread_id


async def _join(server: SocketServer, clients: list[WsClient], thread_id: str, *, unix: bool) -> WsClient:
    client = await (server.connect_unix() if unix else server.connect_ws())
    clients.append(client)
    await client.initialize()
    await client.request("thread/resume", {"threadId": thread_id})
    return client


@pytest.mark.parametrize("count", [2, 10])
async def test_every_client_on_a_thread_receives_the_whole_streamed_turn(
    count: int,
    socket_server: StartSocketServer,
    clients: list[WsClient],
    fake_model: FakeResponsesServer,
    workdir: Path,
) -> None:
    server = await socket_server("--listen", "unix://", "--listen", "ws://127.0.0.1:0")
    owner = await server.connect_ws()
    clients.append(owner)
    await owner.initialize()
    thread_id = await _materialised_thread(owner, fake_model, workdir)
    others = [await _join(server, clients, thread_id, unix=i % 2 == 0) for i in range(count - 1)]
    marks = {id(c): c.mark() for c in [owner, *others]}

    fake_model.add(script.text_reply("Everyone sees this reply.", deltas=6))
    await owner.request(TURN, {"threadId": thread_id, "input": [{"type": "text", "text": "two"}]})
    for client in [owner, *others]:
        await client.notification("turn/completed", after=marks[id(client)])

    def stream(client: WsClient) -> list[str]:
        return [m for m in methods(client.since(marks[id(client)])) if m != "<result>"]

    assert all(stream(c) == stream(owner) for c in others)
    assert stream(owner).count("item/agentMessage/delta") == 6


async def test_a_client_that_stops_reading_is_dropped_and_the_others_keep_streaming(
    socket_server: StartSocketServer,
    clients: list[WsClient],
    fake_model: FakeResponsesServer,
    workdir: Path,
) -> None:
    server = await socket_server("--listen", "unix://", "--outbox-capacity", "64")
    fast = await server.connect_unix()
    clients.append(fast)
    await fast.initialize()
    thread_id = await _materialised_thread(fast, fake_model, workdir)
    slow = await server.connect_unix()
    await slow.initialize()
    await slow.request("thread/resume", {"threadId": thread_id})
    slow_mark = slow.mark()
    slow.pause_reading()

    # Batches of deltas, each released once the fast client has all of the previous one: the fast
    # client never lags, the slow one falls behind by far more than its socket and outbox hold.
    batches, per_batch, size = 20, 10, 20_000
    fake_model.add(_batched_reply(batches, per_batch, size))
    mark = fast.mark()
    await fast.request(TURN, {"threadId": thread_id, "input": [{"type": "text", "text": "big"}]})
    for batch in range(1, batches):
        wanted = batch * per_batch
        await fast.wait_for(lambda _m: _deltas(fast.since(mark)) >= wanted, after=mark)  # noqa: B023
        fake_model.release(f"batch{batch}")
    done = await fast.notification("turn/completed", after=mark)
    slow.resume_reading()
    await slow.closed()

    assert done["params"]["turn"]["status"] == "completed"
    deltas = [m["params"]["delta"] for m in fast.since(mark) if m.get("method") == "item/agentMessage/delta"]
    assert len("".join(deltas)) == batches * per_batch * size
    assert "turn/completed" not in methods(slow.since(slow_mark))
    assert "slow consumer" in server.stderr()


def _deltas(messages: list[dict[str, Any]]) -> int:
    return methods(messages).count("item/agentMessage/delta")


def _batched_reply(batches: int, per_batch: int, size: int) -> dict[str, Any]:
    """A streamed reply whose deltas come in batches, batch n+1 held until gate `batch{n+1}` opens."""
    response = script.text_reply("x" * (batches * per_batch * size), deltas=batches * per_batch)
    steps: list[dict[str, Any]] = []
    seen = 0
    for step in response["steps"]:
        if step.get("event", {}).get("type") == "response.output_text.delta":
            if seen and seen % per_batch == 0:
                steps.append(script.gated(f"batch{seen // per_batch}"))
            seen += 1
        steps.append(step)
    return {**response, "steps": steps}


async def test_a_flood_of_requests_is_answered_in_full_some_with_overloaded(
    socket_server: StartSocketServer, clients: list[WsClient]
) -> None:
    server = await socket_server("--listen", "ws://127.0.0.1:0", "--max-inflight-requests", "2")
    client = await server.connect_ws()
    clients.append(client)
    await client.initialize()

    replies = await asyncio.gather(*(client.call("thread/list", {}) for _ in range(300)))

    overloaded = [r for r in replies if "error" in r]
    assert len(replies) == 300
    assert overloaded, "the ingress limit never engaged"
    assert all(
        r["error"] == {"code": -32001, "message": "Server overloaded; retry later."} for r in overloaded
    )
    assert len(overloaded) < 300


APPROVAL = "item/commandExecution/requestApproval"
ESCALATED = {
    "cmd": "echo hi > out.txt",
    "sandbox_permissions": "require_escalated",
    "justification": "Allow writing out.txt?",
}


async def test_an_approval_goes_to_every_subscriber_and_the_first_answer_wins(
    socket_server: StartSocketServer,
    clients: list[WsClient],
    fake_model: FakeResponsesServer,
    workdir: Path,
) -> None:
    server = await socket_server("--listen", "ws://127.0.0.1:0")
    owner = await server.connect_ws()
    clients.append(owner)
    await owner.initialize()
    fake_model.add(script.text_reply("first"))
    started = await owner.request(
        "thread/start", {"cwd": str(workdir), "sandbox": "read-only", "approvalPolicy": "on-request"}
    )
    thread_id = started["thread"]["id"]
    mark = owner.mark()
    await owner.request(TURN, {"threadId": thread_id, "input": [{"type": "text", "text": "one"}]})
    await owner.notification("turn/completed", after=mark)
    other = await _join(server, clients, thread_id, unix=False)
    marks = [owner.mark(), other.mark()]

    fake_model.add(
        script.reply(script.function_call("exec_command", ESCALATED, "call_1")), script.text_reply("done")
    )
    await owner.request(TURN, {"threadId": thread_id, "input": [{"type": "text", "text": "two"}]})
    asks = [await c.server_request(APPROVAL, after=m) for c, m in zip([owner, other], marks, strict=True)]
    late = await _join(server, clients, thread_id, unix=False)
    replayed = await late.server_request(APPROVAL)
    await other.respond(asks[1]["id"], {"decision": "accept"})
    await owner.notification("serverRequest/resolved", after=marks[0])
    await owner.respond(asks[0]["id"], {"decision": "decline"})  # too late: ignored
    for client, after in [(owner, marks[0]), (other, marks[1]), (late, 0)]:
        await client.notification("turn/completed", after=after)
        await client.notification("serverRequest/resolved", after=after)

    assert asks[0]["id"] == asks[1]["id"] == replayed["id"]
    commands = [
        m["params"]["item"]
        for m in owner.since(marks[0])
        if m.get("method") == "item/completed" and m["params"]["item"]["type"] == "commandExecution"
    ]
    assert [c["status"] for c in commands] == ["completed"]  # the accept won; the decline was ignored


async def test_the_client_that_started_a_turn_can_leave_and_the_others_still_see_it_finish(
    socket_server: StartSocketServer,
    clients: list[WsClient],
    fake_model: FakeResponsesServer,
    workdir: Path,
) -> None:
    server = await socket_server("--listen", "unix://")
    owner = await server.connect_unix()
    await owner.initialize()
    thread_id = await _materialised_thread(owner, fake_model, workdir)
    watcher = await _join(server, clients, thread_id, unix=True)
    mark = watcher.mark()

    fake_model.add(script.reply(script.gated("hold"), script.message("finished without its starter")))
    await owner.request(TURN, {"threadId": thread_id, "input": [{"type": "text", "text": "two"}]})
    await fake_model.wait_for_gate("hold")
    await owner.close()
    fake_model.release("hold")
    done = await watcher.notification("turn/completed", after=mark)

    assert done["params"]["turn"]["status"] == "completed"
    assert done["params"]["turn"]["items"][-1]["text"] == "finished without its starter"
