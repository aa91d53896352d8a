"""thread/shellCommand: the user's own command, recorded in the thread like Codex's `!cmd`."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import StartApp
from tests.support.rpcclient import methods
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


async def test_a_shell_command_runs_in_its_own_turn_and_the_model_sees_it_later(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("I saw it."))
    server = await start_app()
    tid = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    await server.notification("thread/started")
    mark = server.mark()
    result = await server.request(
        "thread/shellCommand", {"threadId": tid, "command": "echo hello; echo err >&2; exit 3"}
    )
    assert result == {}
    done = await server.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "completed"
    assert done["params"]["turn"]["items"] == []
    seq = [m for m in methods(server.since(mark)) if m != "item/commandExecution/outputDelta"]
    assert seq == [
        "<result>",
        "thread/status/changed",
        "turn/started",
        "item/started",
        "item/completed",
        "thread/status/changed",
        "turn/completed",
    ]
    item = next(m["params"]["item"] for m in server.since(mark) if m.get("method") == "item/completed")
    assert item["source"] == "userShell" and item["status"] == "failed" and item["exitCode"] == 3
    assert "hello" in item["aggregatedOutput"] and "err" in item["aggregatedOutput"]

    mark = server.mark()
    await server.request(
        "turn/start", {"threadId": tid, "input": [{"type": "text", "text": "what happened?"}]}
    )
    await server.notification("turn/completed", after=mark)
    texts = [c["text"] for m in fake_model.requests[0].body["input"] for c in m.get("content", [])]
    assert any("<user_shell_command>" in t and "echo hello" in t for t in texts)


async def test_a_shell_command_past_its_timeout_exits_124(start_app: StartApp, workdir: Path) -> None:
    server = await start_app()
    tid = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    mark = server.mark()
    await server.request("thread/shellCommand", {"threadId": tid, "command": "sleep 30", "timeoutMs": 200})
    await server.notification("turn/completed", after=mark)
    item = next(m["params"]["item"] for m in server.since(mark) if m.get("method") == "item/completed")
    assert item["exitCode"] == 124
