"""`thread/goal/set|get|clear` as Codex 0.169.0 answers them (observed on the binary against the fake
model): a goal with its objective, status, budget and usage; `thread/goal/updated` after each change,
`thread/goal/cleared` when one is removed; Codex's errors, which change nothing; the goal kept with
the thread across a restart and shown again on resume."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import StartApp
from tests.support.rpcclient import RpcClient, RpcErrorReply
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

GOAL_KEYS = {
    "threadId",
    "objective",
    "status",
    "tokenBudget",
    "tokensUsed",
    "timeUsedSeconds",
    "createdAt",
    "updatedAt",
}


async def _thread(server: RpcClient, workdir: Path) -> str:
    return str((await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"])


async def _error(server: RpcClient, method: str, params: dict[str, Any]) -> tuple[Any, str]:
    with pytest.raises(RpcErrorReply) as caught:
        await server.request(method, params)
    return caught.value.code, caught.value.message


async def test_set_get_clear_with_their_notifications(start_app: StartApp, workdir: Path) -> None:
    server = await start_app()
    tid = await _thread(server, workdir)
    assert await server.request("thread/goal/get", {"threadId": tid}) == {"goal": None}

    mark = server.mark()
    params = {"threadId": tid, "objective": "write a poem", "status": "paused", "tokenBudget": 1000}
    goal = (await server.request("thread/goal/set", params))["goal"]
    assert set(goal) == GOAL_KEYS
    assert (goal["threadId"], goal["objective"], goal["status"], goal["tokenBudget"]) == (
        tid,
        "write a poem",
        "paused",
        1000,
    )
    assert (goal["tokensUsed"], goal["timeUsedSeconds"]) == (0, 0)
    updated = await server.notification("thread/goal/updated", after=mark)
    assert updated["params"] == {"threadId": tid, "turnId": None, "goal": goal}
    assert [m.get("method", "<result>") for m in server.since(mark)] == ["<result>", "thread/goal/updated"]
    assert await server.request("thread/goal/get", {"threadId": tid}) == {"goal": goal}

    # A change keeps what it does not name: the objective, and the budget unless given (null removes it).
    changed = (await server.request("thread/goal/set", {"threadId": tid, "status": "budgetLimited"}))["goal"]
    assert (changed["objective"], changed["status"], changed["tokenBudget"]) == (
        "write a poem",
        "budgetLimited",
        1000,
    )
    changed = (
        await server.request(
            "thread/goal/set", {"threadId": tid, "status": "complete", "origin": "automatic"}
        )
    )["goal"]
    assert changed["status"] == "complete"
    changed = (await server.request("thread/goal/set", {"threadId": tid, "tokenBudget": None}))["goal"]
    assert (changed["status"], changed["tokenBudget"]) == ("complete", None)
    changed = (
        await server.request("thread/goal/set", {"threadId": tid, "objective": "another", "origin": "user"})
    )["goal"]
    assert (changed["objective"], changed["status"], changed["createdAt"]) == (
        "another",
        "complete",
        goal["createdAt"],
    )

    mark = server.mark()
    assert await server.request("thread/goal/clear", {"threadId": tid, "origin": "automatic"}) == {
        "cleared": True
    }
    cleared = await server.notification("thread/goal/cleared", after=mark)
    assert cleared["params"] == {"threadId": tid}
    mark = server.mark()
    assert await server.request("thread/goal/clear", {"threadId": tid}) == {"cleared": False}
    assert await server.request("thread/goal/get", {"threadId": tid}) == {"goal": None}
    assert "thread/goal/cleared" not in [m.get("method") for m in server.since(mark)]


async def test_bad_requests_get_codex_errors_and_change_nothing(start_app: StartApp, workdir: Path) -> None:
    server = await start_app()
    tid = await _thread(server, workdir)
    missing = "00000000-0000-0000-0000-000000000000"
    bogus_id = (
        "invalid thread id: invalid character: expected an optional prefix of `urn:uuid:` followed by "
        "[0-9a-fA-F-], found `o` at 2"
    )
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("thread/goal/get", {"threadId": missing}, f"thread not found: {missing}"),
        ("thread/goal/get", {"threadId": "bogus"}, bogus_id),
        ("thread/goal/set", {"threadId": missing, "objective": "x"}, f"thread not found: {missing}"),
        ("thread/goal/clear", {"threadId": "bogus"}, bogus_id),
        ("thread/goal/set", {"threadId": tid}, f"cannot update goal for thread {tid}: no goal exists"),
        (
            "thread/goal/set",
            {"threadId": tid, "status": "paused"},
            f"cannot update goal for thread {tid}: no goal exists",
        ),
        ("thread/goal/set", {"threadId": tid, "objective": ""}, "goal objective must not be empty"),
        ("thread/goal/set", {"threadId": tid, "objective": "   "}, "goal objective must not be empty"),
        (
            "thread/goal/set",
            {"threadId": tid, "objective": "x" * 4001},
            "goal objective must be at most 4000 characters",
        ),
        (
            "thread/goal/set",
            {"threadId": tid, "objective": "x", "tokenBudget": 0},
            "goal budgets must be positive when provided",
        ),
        (
            "thread/goal/set",
            {"threadId": tid, "objective": "x", "tokenBudget": -5},
            "goal budgets must be positive when provided",
        ),
    ]
    for method, params, message in cases:
        assert await _error(server, method, params) == (-32600, message), (method, params)
    assert await server.request("thread/goal/get", {"threadId": tid}) == {"goal": None}

    await server.request("thread/goal/set", {"threadId": tid, "objective": "kept", "status": "paused"})
    assert await _error(server, "thread/goal/set", {"threadId": tid, "tokenBudget": 0}) == (
        -32600,
        "goal budgets must be positive when provided",
    )
    goal = (await server.request("thread/goal/get", {"threadId": tid}))["goal"]
    assert (goal["objective"], goal["tokenBudget"]) == ("kept", None)


async def test_the_goal_outlives_a_restart_and_resume_shows_it(
    tmp_path: Path, start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    home = tmp_path / "home"
    server = await start_app(home=home, initialize=False)
    await server.initialize(experimental=True)
    tid = await _thread(server, workdir)
    params = {"threadId": tid, "objective": "ship it", "status": "paused", "tokenBudget": 500}
    goal = (await server.request("thread/goal/set", params))["goal"]
    await server.close()

    again = await start_app(home=home)
    assert await again.request("thread/goal/get", {"threadId": tid}) == {"goal": goal}
    mark = again.mark()
    await again.request("thread/resume", {"threadId": tid})
    shown = await again.notification("thread/goal/updated", after=mark)
    assert shown["params"] == {"threadId": tid, "turnId": None, "goal": goal}
    assert await again.request("thread/goal/clear", {"threadId": tid}) == {"cleared": True}
    await again.close()

    third = await start_app(home=home)
    assert await third.request("thread/goal/get", {"threadId": tid}) == {"goal": None}


async def test_an_active_goal_goes_on_working_when_its_thread_is_resumed_after_a_restart(
    tmp_path: Path, start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    # Codex 0.169.0, killed during a goal turn and started again: nothing runs until the thread is
    # resumed; then the goal is shown and goal turns run on until the budget stops them.
    home = tmp_path / "home"
    fake_model.add(script.reply(script.gated("held"), script.message("first")))
    server = await start_app(home=home)
    tid = await _thread(server, workdir)
    params = {"threadId": tid, "objective": "ship it", "tokenBudget": 200}
    await server.request("thread/goal/set", params)
    await fake_model.wait_for_gate("held")
    await server.close()
    assert len(fake_model.requests) == 1

    usage = script.usage(100, 20)
    fake_model.add(*(script.text_reply(f"step {i}", usage=usage) for i in range(2)))
    again = await start_app(home=home)
    goal = (await again.request("thread/goal/get", {"threadId": tid}))["goal"]
    assert (goal["status"], goal["tokensUsed"]) == ("active", 0)
    assert len(fake_model.requests) == 1  # loading the daemon runs nothing
    mark = again.mark()
    await again.request("thread/resume", {"threadId": tid})
    limited = await again.notification(
        "thread/goal/updated", after=mark, where=lambda p: p["goal"]["status"] == "budgetLimited"
    )
    assert limited["params"]["goal"]["tokensUsed"] == 240
    seen = [m.get("method") for m in again.since(mark)]
    assert seen.index("thread/goal/updated") < seen.index("turn/started")
    assert fake_model.remaining == 0
