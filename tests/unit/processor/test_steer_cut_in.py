"""`turn/steer` during a streaming answer cuts in: the response stops, the next request carries the steer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.unit.processor.conftest import Connect

from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


def _half_answer(first: str, rest: str) -> dict[str, Any]:
    """A response that streams `first`, then waits at gate "mid" before `rest` and the end."""
    whole = script.reply(script.message(first + rest, deltas=2, msg_id="msg_cut"))
    steps: list[dict[str, Any]] = whole["steps"]
    deltas = [
        i for i, s in enumerate(steps) if s.get("event", {}).get("type") == "response.output_text.delta"
    ]
    steps[deltas[0]]["event"]["delta"] = first
    steps[deltas[1]]["event"]["delta"] = rest
    steps.insert(deltas[1], script.gated("mid"))
    return whole


async def test_a_steer_stops_the_streaming_answer_and_the_next_request_carries_it(
    connect: Connect, fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    fake_model.add(
        _half_answer("Counting: one, two", ", three."), script.text_reply("Stopped; in French: un.")
    )
    client = await connect()
    thread_id = (await client.request("thread/start", {"cwd": str(tmp_path)}))["thread"]["id"]
    mark = client.mark()
    text = [{"type": "text", "text": "count to three"}]
    turn = (await client.request("turn/start", {"threadId": thread_id, "input": text}))["turn"]
    await fake_model.wait_for_gate("mid")
    await client.notification("item/agentMessage/delta", after=mark)

    steer = [{"type": "text", "text": "stop, say it in French"}]
    await client.request("turn/steer", {"threadId": thread_id, "input": steer, "expectedTurnId": turn["id"]})
    # The turn finishes while the first response is still held at its gate: it was not waited for.
    done = await client.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "completed"
    assert done["params"]["turn"]["items"][0]["text"] == "Stopped; in French: un."

    completed = [m["params"]["item"] for m in client.since(mark) if m.get("method") == "item/completed"]
    assert [(i["type"], i.get("text")) for i in completed if i["type"] == "agentMessage"] == [
        ("agentMessage", "Counting: one, two"),
        ("agentMessage", "Stopped; in French: un."),
    ]
    assert [i["type"] for i in completed] == ["userMessage", "agentMessage", "userMessage", "agentMessage"]

    assert len(fake_model.requests) == 2
    second = fake_model.requests[1].body["input"]
    assert second[-2] == {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Counting: one, two"}],
    }
    assert second[-1]["role"] == "user" and second[-1]["content"][0]["text"] == "stop, say it in French"
    read = await client.request("thread/read", {"threadId": thread_id, "includeTurns": True})
    (stored,) = read["thread"]["turns"]
    texts = [i.get("text") for i in stored["items"] if i["type"] == "agentMessage"]
    assert texts == ["Counting: one, two", "Stopped; in French: un."]
    fake_model.release("mid")
    assert ", three." not in json.dumps(client.messages)


async def test_a_steer_before_the_next_answer_cuts_the_wait_and_keeps_the_tool_output(
    connect: Connect, fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    call = script.function_call("exec_command", {"cmd": "echo tool-output"}, call_id="call-1")
    fake_model.add(
        script.reply(call),
        script.reply(script.gated("second"), script.message("after the tool")),
        script.text_reply("took the steer"),
    )
    client = await connect()
    start = {"cwd": str(tmp_path), "sandbox": "danger-full-access", "approvalPolicy": "never"}
    thread_id = (await client.request("thread/start", start))["thread"]["id"]
    mark = client.mark()
    text = [{"type": "text", "text": "run it"}]
    turn = (await client.request("turn/start", {"threadId": thread_id, "input": text}))["turn"]
    await fake_model.wait_for_gate("second")
    steer = [{"type": "text", "text": "and then stop"}]
    await client.request("turn/steer", {"threadId": thread_id, "input": steer, "expectedTurnId": turn["id"]})
    done = await client.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["items"][0]["text"] == "took the steer"
    third = json.dumps(fake_model.requests[2].body["input"])
    assert "tool-output" in third and "and then stop" in third
    fake_model.release("second")
