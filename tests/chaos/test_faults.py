"""Faults from below and beside: a misbehaving model provider, a client that vanishes mid-approval.

Each fault ends the turn cleanly (completed after a retry, failed with an error the client sees,
or interrupted on request), the daemon keeps answering, and the thread takes the next turn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import StartServer
from tests.support.appserver import AppServer, mock_provider_args
from tests.support.wsclient import SocketServer
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

APPROVAL = "item/commandExecution/requestApproval"
NOT_JSON = 'event: response.output_text.delta\ndata: {"type": "response.output_text.delta", "delta": \n\n'


def endless(gate: str) -> dict[str, Any]:
    """A stream that sends a few deltas and then nothing, never completing."""
    streamed = script.reply(script.message("this never ends " * 4, deltas=6))
    steps = streamed["steps"]
    at = next(i for i, step in enumerate(steps) if "output_item.done" in str(step.get("event")))
    return {**streamed, "steps": [*steps[:at], script.gated(gate)]}


# (name, scripted responses, the statuses the turn may end with)
FAULTS: list[tuple[str, list[dict[str, Any]], set[str]]] = [
    (
        "429 with retry-after, then an answer",
        [script.http_error(429, retry_after=0.05), script.text_reply("ok")],
        {"completed"},
    ),
    ("500 then an answer", [script.http_error(500), script.text_reply("ok")], {"completed"}),
    ("500 on every try", [script.http_error(500)] * 4, {"failed"}),
    (
        "dropped mid-delta, then an answer",
        [script.disconnect_after(4), script.text_reply("ok")],
        {"completed"},
    ),
    ("malformed SSE", [script.reply(script.raw(NOT_JSON)), script.text_reply("ok")], {"completed", "failed"}),
    ("a stall mid-stream", [script.reply(script.message("slow"), script.delay(300))], {"completed"}),
    (
        "an unknown event type",
        [script.reply({"event": {"type": "response.wat"}}, script.message("ok"))],
        {"completed"},
    ),
]


async def test_provider_faults_end_the_turn_cleanly_and_the_daemon_serves_on(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    retries = ("-c", "model_providers.mock.request_max_retries=2")
    server = await start_server(*retries, stream_max_retries=1)
    tid = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    for name, responses, allowed in FAULTS:
        fake_model.add(*responses)
        status = await _turn_status(server, tid)
        assert status in allowed, f"{name}: the turn ended {status}, expected one of {allowed}"
        fake_model.discard_remaining()

    # A never-ending stream: the client interrupts, the turn ends as interrupted.
    fake_model.add(endless("forever"))
    mark = server.mark()
    turn = await server.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "go"}]})
    await fake_model.wait_for_gate("forever")
    await server.request("turn/interrupt", {"threadId": tid, "turnId": turn["turn"]["id"]})
    done = await server.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "interrupted"
    fake_model.release("forever")

    fake_model.add(script.text_reply("still here"))
    assert await _turn_status(server, tid) == "completed"
    read = await server.request("thread/read", {"threadId": tid, "includeTurns": True})
    assert all(t["status"] != "inProgress" for t in read["thread"]["turns"])


async def _turn_status(server: AppServer, tid: str) -> str:
    mark = server.mark()
    turn = await server.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "go"}]})
    done = await server.notification(
        "turn/completed", after=mark, where=lambda p: p["turn"]["id"] == turn["turn"]["id"]
    )
    status = str(done["params"]["turn"]["status"])
    if status == "failed":
        errors = [m for m in server.since(mark) if m.get("method") == "error"]
        assert errors, "a failed turn without an error notification"
    return status


async def test_a_client_vanishing_mid_approval_leaves_the_turn_to_the_others(
    tmp_path: Path, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    args = {"cmd": "echo hi", "sandbox_permissions": "require_escalated", "justification": "vanish"}
    fake_model.add(script.reply(script.function_call("exec_command", args)), script.text_reply("done"))
    server = await SocketServer.start(
        tmp_path / "home", [*mock_provider_args(fake_model.base_url), "--listen", "ws://127.0.0.1:0"]
    )
    try:
        owner, other = await server.connect_ws(), await server.connect_ws()
        await owner.initialize()
        await other.initialize()
        start = {"cwd": str(workdir), "sandbox": "read-only", "approvalPolicy": "on-request"}
        tid = (await owner.request("thread/start", start))["thread"]["id"]
        await other.request("thread/resume", {"threadId": tid})
        mark = other.mark()
        turn = await owner.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "go"}]})
        await owner.server_request(APPROVAL)
        owner.ws.transport.abort()  # vanish without a close frame
        asked = await other.server_request(APPROVAL, after=mark)
        await other.respond(asked["id"], {"decision": "decline"})
        done = await other.notification(
            "turn/completed", after=mark, where=lambda p: p["turn"]["id"] == turn["turn"]["id"]
        )
        assert done["params"]["turn"]["status"] == "completed"
        read = await other.request("thread/read", {"threadId": tid, "includeTurns": True})
        items = [i for i in read["thread"]["turns"][-1]["items"] if i["type"] == "commandExecution"]
        assert [i["status"] for i in items] == ["declined"]
        await other.close()
    finally:
        await server.stop()
