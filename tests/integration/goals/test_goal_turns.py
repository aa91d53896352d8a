"""An active goal drives the agent, as in Codex 0.169.0 (observed on the binary against the fake
model): setting one on an idle thread starts a turn with no user message, every completed turn that
leaves it active starts the next, each response's tokens count against it, and it stops as
`budgetLimited` once they reach its budget. The model reads and changes it with `get_goal`,
`create_goal` and `update_goal`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tests.support.rpcclient import RpcClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

USAGE = script.usage(100, 20)  # 120 tokens a response


async def _thread(server: RpcClient, workdir: Path) -> str:
    return str((await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"])


def _goal_updates(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m["params"] for m in messages if m.get("method") == "thread/goal/updated"]


def _outputs(body: dict[str, Any]) -> dict[str, str]:
    return {i["call_id"]: i["output"] for i in body["input"] if i.get("type") == "function_call_output"}


async def test_an_active_goal_keeps_the_agent_working_until_its_budget_is_spent(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(*(script.text_reply(f"step {i}", usage=USAGE) for i in range(3)))
    server = await start_app()
    tid = await _thread(server, workdir)
    mark = server.mark()
    goal = (
        await server.request(
            "thread/goal/set", {"threadId": tid, "objective": "write a poem", "tokenBudget": 250}
        )
    )["goal"]
    assert (goal["status"], goal["tokensUsed"]) == ("active", 0)

    final = await server.notification(
        "thread/goal/updated", after=mark, where=lambda p: p["goal"]["status"] != "active"
    )
    assert final["params"]["goal"]["status"] == "budgetLimited"
    assert final["params"]["goal"]["tokensUsed"] == 360
    last = final["params"]["turnId"]
    await server.notification("turn/completed", after=mark, where=lambda p: p["turn"]["id"] == last)
    seen = server.since(mark)
    # As Codex 0.169.0: each turn's goal update comes before the thread turns idle and the turn
    # completes.
    ends = [
        m["method"]
        for m in seen
        if m.get("method") in ("thread/goal/updated", "thread/status/changed", "turn/completed")
        and (m.get("method") != "thread/status/changed" or m["params"]["status"]["type"] == "idle")
    ]
    assert (
        ends
        == ["thread/goal/updated"] + ["thread/goal/updated", "thread/status/changed", "turn/completed"] * 3
    )
    turns = [m["params"]["turn"] for m in seen if m.get("method") == "turn/completed"]
    assert len(turns) == 3 and all(t["status"] == "completed" for t in turns)
    # No one typed: a goal turn holds only what the agent did.
    assert [[i["type"] for i in t["items"]] for t in turns] == [["agentMessage"]] * 3
    used = [(u["turnId"], u["goal"]["tokensUsed"], u["goal"]["status"]) for u in _goal_updates(seen)[1:]]
    assert used == [
        (turns[0]["id"], 120, "active"),
        (turns[1]["id"], 240, "active"),
        (turns[2]["id"], 360, "budgetLimited"),
    ]
    # Each request offers the goal tools and tells the model about the goal and its budget.
    first = fake_model.requests[0].body
    assert [t["name"] for t in first["tools"] if "goal" in t.get("name", "")] == [
        "get_goal",
        "create_goal",
        "update_goal",
    ]
    note = first["input"][-1]["content"][0]["text"]
    assert "write a poem" in note and "250" in note
    assert (
        "240 of a 250-token budget (10 left)"
        in fake_model.requests[2].body["input"][-1]["content"][0]["text"]
    )
    assert await server.request("thread/goal/get", {"threadId": tid}) == {"goal": final["params"]["goal"]}
    assert fake_model.remaining == 0  # stopped at the budget: no fourth request


async def test_the_model_reads_its_goal_and_marks_it_complete(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("get_goal", {}, "c1"), usage=USAGE),
        script.reply(script.function_call("create_goal", {"objective": "another"}, "c2"), usage=USAGE),
        script.reply(script.function_call("update_goal", {"status": "active"}, "c3"), usage=USAGE),
        script.reply(script.function_call("update_goal", {"status": "complete"}, "c4"), usage=USAGE),
        script.text_reply("counted to three", usage=USAGE),
    )
    server = await start_app()
    tid = await _thread(server, workdir)
    mark = server.mark()
    await server.request("thread/goal/set", {"threadId": tid, "objective": "count to three"})
    done = await server.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "completed"
    goal = (await server.request("thread/goal/get", {"threadId": tid}))["goal"]
    assert (goal["objective"], goal["status"], goal["tokensUsed"]) == ("count to three", "complete", 480)

    outputs = _outputs(fake_model.requests[4].body)
    read = json.loads(outputs["c1"])
    assert read["goal"]["objective"] == "count to three" and read["goal"]["status"] == "active"
    assert "tokenBudget" not in read["goal"] and read["remainingTokens"] is None
    assert "not complete" in outputs["c2"]  # one unfinished goal at a time
    assert "complete, blocked" in outputs["c3"]  # resuming is not the model's to do
    completed = json.loads(outputs["c4"])
    assert completed["goal"]["status"] == "complete"
    # The client heard the model's change, with the turn that made it.
    updates = _goal_updates(server.since(mark))
    assert any(
        u["goal"]["status"] == "complete" and u["turnId"] == done["params"]["turn"]["id"] for u in updates
    )
    # Complete: no further turn.
    turns = [m for m in server.since(mark) if m.get("method") == "turn/started"]
    assert len(turns) == 1 and fake_model.remaining == 0


async def test_the_model_starts_a_goal_when_asked_and_it_then_drives_the_next_turn(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(
            script.function_call("create_goal", {"objective": "tidy", "token_budget": 0}, "c1"), usage=USAGE
        ),
        script.reply(
            script.function_call("create_goal", {"objective": "tidy", "token_budget": 200}, "c2"), usage=USAGE
        ),
        script.text_reply("started", usage=USAGE),
        script.text_reply("tidied", usage=USAGE),
    )
    server = await start_app()
    tid = await _thread(server, workdir)
    mark = server.mark()
    await server.request(
        "turn/start", {"threadId": tid, "input": [{"type": "text", "text": "set a goal: tidy"}]}
    )
    limited = await server.notification(
        "thread/goal/updated", after=mark, where=lambda p: p["goal"]["status"] == "budgetLimited"
    )
    assert limited["params"]["goal"]["tokensUsed"] == 240  # the responses after it was created
    outputs = _outputs(fake_model.requests[2].body)
    assert outputs["c1"] == "goal budgets must be positive when provided"
    assert json.loads(outputs["c2"])["remainingTokens"] == 200
    last = limited["params"]["turnId"]
    await server.notification("turn/completed", after=mark, where=lambda p: p["turn"]["id"] == last)
    assert len([m for m in server.since(mark) if m.get("method") == "turn/completed"]) == 2
