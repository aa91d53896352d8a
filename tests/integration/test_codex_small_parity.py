"""Small wire details Codex 0.169.0 has and Tether lacked (issue 25), observed on the real binary
against the fake model: `thread/settings/updated` when a turn's overrides or `thread/settings/update`
change the thread's settings (and not when they leave them as they were), the last token usage
repeated after a resume, the resume's collaboration mode and backwards cursors (which include their
anchor row), a command item's process id and source, and the review request in `review/start`'s
answer."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tests.support.rpcclient import RpcClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

SETTINGS = "thread/settings/updated"


async def _experimental(start_app: StartApp) -> RpcClient:
    server = await start_app(initialize=False)
    await server.initialize(experimental=True)
    return server


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


async def _thread(server: RpcClient, workdir: Path, **params: Any) -> str:
    started = await server.request("thread/start", {"cwd": str(workdir), **params})
    return str(started["thread"]["id"])


async def _turn(server: RpcClient, tid: str, text: str, **overrides: Any) -> list[dict[str, Any]]:
    mark = server.mark()
    await server.request("turn/start", {"threadId": tid, "input": _text(text), **overrides})
    await server.notification("turn/completed", after=mark)
    return server.since(mark)


def _methods(messages: list[dict[str, Any]]) -> list[str]:
    return [m.get("method", "<result>") for m in messages]


async def test_settings_updated_announces_a_changed_setting_before_the_turn_starts_and_only_then(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(*(script.text_reply(f"r{i}") for i in range(3)))
    server = await _experimental(start_app)
    tid = await _thread(server, workdir, approvalPolicy="never", sandbox="workspace-write")

    seen = await _turn(server, tid, "one", effort="high")
    assert _methods(seen)[:2] == [SETTINGS, "<result>"]
    settings = seen[0]["params"]["threadSettings"]
    assert seen[0]["params"]["threadId"] == tid
    assert (settings["effort"], settings["approvalPolicy"], settings["sandboxPolicy"]["type"]) == (
        "high",
        "never",
        "workspaceWrite",
    )
    assert settings["collaborationMode"] == {
        "mode": "default",
        "settings": {"model": settings["model"], "reasoning_effort": "high", "developer_instructions": None},
    }
    assert settings["activePermissionProfile"] is None and settings["cwd"] == str(workdir)

    # No override, or one that changes nothing: Codex says nothing.
    assert SETTINGS not in _methods(await _turn(server, tid, "two"))
    assert SETTINGS not in _methods(await _turn(server, tid, "three", effort="high"))

    mark = server.mark()
    assert await server.request("thread/settings/update", {"threadId": tid, "effort": "low"}) == {}
    updated = await server.notification(SETTINGS, after=mark)
    assert updated["params"]["threadSettings"]["effort"] == "low"
    assert _methods(server.since(mark)) == ["<result>", SETTINGS]
    mark = server.mark()
    await server.request("thread/settings/update", {"threadId": tid, "effort": "low"})
    await server.request("thread/loaded/list", {})
    assert SETTINGS not in _methods(server.since(mark))


async def test_a_collaboration_mode_set_by_settings_update_is_announced_with_its_instructions(
    start_app: StartApp, workdir: Path
) -> None:
    server = await _experimental(start_app)
    tid = await _thread(server, workdir)
    mark = server.mark()
    plan = {"mode": "plan", "settings": {"model": "mock-model", "developer_instructions": None}}
    await server.request("thread/settings/update", {"threadId": tid, "effort": "low"})
    await server.request("thread/settings/update", {"threadId": tid, "collaborationMode": plan})
    await server.notification(SETTINGS, after=mark)
    last = [m for m in server.since(mark) if m.get("method") == SETTINGS][-1]["params"]["threadSettings"]
    mode = last["collaborationMode"]
    # The mode's own (absent) effort wins over the thread's, as in Codex; its instructions are
    # the server's own plan-mode text when the client gives none.
    assert (mode["mode"], mode["settings"]["reasoning_effort"], last["effort"]) == ("plan", None, None)
    assert mode["settings"]["developer_instructions"]


async def test_a_resume_repeats_the_last_token_usage_and_reports_mode_and_backwards_cursors(
    tmp_path: Path, start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    usage = script.usage(100, 10)
    fake_model.add(*(script.text_reply(f"r{i}", usage=usage) for i in range(2)))
    home = tmp_path / "home"
    server = await start_app(home=home)
    tid = await _thread(server, workdir)
    await _turn(server, tid, "first")
    second = await _turn(server, tid, "second")
    last_usage = [m for m in second if m.get("method") == "thread/tokenUsage/updated"][-1]["params"]
    assert await server.close() == 0

    again = await start_app(home=home)
    mark = again.mark()
    resumed = await again.request("thread/resume", {"threadId": tid, "excludeTurns": True})
    repeated = await again.notification("thread/tokenUsage/updated", after=mark)
    assert repeated["params"] == last_usage
    assert repeated["params"]["tokenUsage"]["total"]["totalTokens"] == 220
    assert resumed["collaborationMode"] == {
        "mode": "default",
        "settings": {"model": resumed["model"], "reasoning_effort": None, "developer_instructions": None},
    }
    turns = await again.request(
        "thread/turns/list",
        {"threadId": tid, "cursor": resumed["turnsBackwardsCursor"], "sortDirection": "desc"},
    )
    newest_first = [t["id"] for t in turns["data"]]
    assert len(newest_first) == 2
    items = await again.request(
        "thread/items/list",
        {"threadId": tid, "cursor": resumed["itemsBackwardsCursor"], "sortDirection": "desc"},
    )
    assert items["data"][0]["item"] == {**items["data"][0]["item"], "type": "agentMessage", "text": "r1"}

    # A list's backwards cursor, read the other way, starts with the page's first row again.
    oldest = await again.request("thread/turns/list", {"threadId": tid, "sortDirection": "asc", "limit": 1})
    back = await again.request(
        "thread/turns/list", {"threadId": tid, "sortDirection": "desc", "cursor": oldest["backwardsCursor"]}
    )
    assert [t["id"] for t in back["data"]] == [newest_first[-1]]
    newest = await again.request("thread/items/list", {"threadId": tid, "sortDirection": "desc", "limit": 1})
    forward = await again.request(
        "thread/items/list", {"threadId": tid, "sortDirection": "asc", "cursor": newest["backwardsCursor"]}
    )
    assert [i["item"]["id"] for i in forward["data"]] == [newest["data"][0]["item"]["id"]]


async def test_a_command_item_carries_its_process_id_and_source_as_codex_reports_them(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    call = script.function_call("exec_command", {"cmd": "echo hi"}, "call_1")
    fake_model.add(script.reply(call), script.text_reply("done"))
    server = await start_app()
    tid = await _thread(server, workdir, approvalPolicy="never", sandbox="workspace-write")
    seen = await _turn(server, tid, "run it")
    commands = [
        m["params"]["item"]
        for m in seen
        if m.get("method") in ("item/started", "item/completed")
        and m["params"]["item"]["type"] == "commandExecution"
    ]
    assert [(c["status"], c["source"]) for c in commands] == [
        ("inProgress", "unifiedExecStartup"),
        ("completed", "unifiedExecStartup"),
    ]
    assert commands[0]["processId"] == commands[1]["processId"] and commands[0]["processId"].isdigit()

    mark = server.mark()
    await server.request("thread/shellCommand", {"threadId": tid, "command": "echo shell"})
    await server.notification("turn/completed", after=mark)
    shell = [m["params"]["item"] for m in server.since(mark) if m.get("method") == "item/completed"]
    assert [(c["source"], c["processId"]) for c in shell] == [("userShell", None)]


async def test_review_start_answers_with_the_review_request_as_the_user_message(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    await asyncio.to_thread(subprocess.run, ["git", "init", "-q"], cwd=workdir, check=True)
    (workdir / "a.txt").write_text("new\n")
    fake_model.add(script.text_reply("Looks fine."))
    server = await start_app()
    tid = await _thread(server, workdir)
    mark = server.mark()
    answer = await server.request("review/start", {"threadId": tid, "target": {"type": "uncommittedChanges"}})
    await server.notification("turn/completed", after=mark)
    turn = answer["turn"]
    assert (turn["status"], turn["rootTurnId"], turn["itemsView"]) == ("inProgress", None, "notLoaded")
    assert turn["items"] == [
        {
            "type": "userMessage",
            "id": turn["id"],
            "clientId": None,
            "content": [{"type": "text", "text": "current changes", "text_elements": []}],
            "startedAtMs": None,
            "completedAtMs": None,
        }
    ]
