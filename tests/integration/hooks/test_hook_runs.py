"""Hooks from config.toml run as Codex 0.169.0 runs them (observed on the binary against the fake model,
with hooks that dump their stdin): only once the user trusted them (`hooks.state."<key>".trusted_hash`);
each run between `hook/started` and `hook/completed`; a PreToolUse hook that exits 2 blocks the
command, which never runs, and the model reads `Command blocked by PreToolUse hook: <stderr>. Command:
<cmd>`; a UserPromptSubmit hook's `additionalContext` reaches the model as a developer message after the
user's; a hook past its timeout is killed and reported `hook timed out after Ns`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import StartApp
from tests.integration.hooks.support import (
    configure,
    function_outputs,
    hook_messages,
    hook_script,
    run_turn,
    trust,
)
from tests.support import schema
from tests.support.rpcclient import RpcErrorReply
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


async def test_a_pre_tool_use_hook_blocks_a_command_which_never_runs_and_the_model_hears_why(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", {"cmd": "touch marker"}, "call_1")),
        script.text_reply("understood"),
    )
    server = await start_app()
    hook_dir = tmp_path / "hook"
    hook = await configure(server, "PreToolUse", str(hook_script(hook_dir, 'echo "no touching" >&2; exit 2')))
    await trust(server, hook)
    thread_id, mark = await run_turn(server, workdir, "make a marker")

    assert not (workdir / "marker").exists()
    assert function_outputs(fake_model)["call_1"] == (
        "Command blocked by PreToolUse hook: no touching. Command: touch marker"
    )
    seen = server.since(mark)
    assert not [
        m
        for m in seen
        if m.get("method") == "item/started" and m["params"]["item"]["type"] == "commandExecution"
    ]
    started, completed = hook_messages(server, mark)
    assert [started["method"], completed["method"]] == ["hook/started", "hook/completed"]
    run = completed["params"]["run"]
    assert run["id"] == f"pre-tool-use:0:{hook['sourcePath']}:call_1"
    assert (run["eventName"], run["status"], run["scope"], run["executionMode"]) == (
        "preToolUse",
        "blocked",
        "turn",
        "sync",
    )
    assert run["entries"] == [{"kind": "feedback", "text": "no touching"}]
    assert started["params"]["run"]["status"] == "running" and started["params"]["run"]["entries"] == []
    assert completed["params"]["threadId"] == thread_id
    assert schema.notification_errors(started) == [] and schema.notification_errors(completed) == []
    stdin = json.loads((hook_dir / "stdin.json").read_text())
    assert {
        k: stdin[k] for k in ("hook_event_name", "tool_name", "tool_input", "tool_use_id", "session_id")
    } == {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "touch marker"},
        "tool_use_id": "call_1",
        "session_id": thread_id,
    }
    assert (stdin["cwd"], stdin["permission_mode"]) == (str(workdir), "bypassPermissions")


async def test_an_untrusted_hook_does_not_run_until_the_user_trusts_it(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", {"cmd": "touch first"}, "call_1")),
        script.text_reply("done"),
        script.reply(script.function_call("exec_command", {"cmd": "touch second"}, "call_2")),
        script.text_reply("blocked"),
    )
    server = await start_app()
    hook_dir = tmp_path / "hook"
    hook = await configure(server, "PreToolUse", str(hook_script(hook_dir, 'echo "no" >&2; exit 2')))
    assert hook["trustStatus"] == "untrusted"
    thread_id, mark = await run_turn(server, workdir, "first")
    assert (workdir / "first").exists()
    assert not (hook_dir / "stdin.json").exists()
    assert hook_messages(server, mark) == []

    await trust(server, hook)
    _, mark = await run_turn(server, workdir, "second", thread_id)
    assert not (workdir / "second").exists()
    assert [m["method"] for m in hook_messages(server, mark)] == ["hook/started", "hook/completed"]

    # A changed definition is `modified`, and does not run until trusted again.
    await configure(server, "PreToolUse", str(hook_script(hook_dir, "exit 2")) + " --changed")
    (entry,) = (await server.request("hooks/list", {"cwds": [str(workdir)]}))["data"]
    assert entry["hooks"][0]["trustStatus"] == "modified"


async def test_a_user_prompt_submit_hook_adds_context_the_model_reads(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    fake_model.add(script.text_reply("ok"))
    server = await start_app()
    answer = {
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "CTX-FROM-HOOK"}
    }
    hook_dir = tmp_path / "hook"
    command = hook_script(hook_dir, f"echo '{json.dumps(answer)}'")
    await trust(server, await configure(server, "UserPromptSubmit", str(command)))
    _, mark = await run_turn(server, workdir, "hello")

    body = fake_model.requests[0].body["input"]
    texts = [(i.get("role"), i["content"][0].get("text")) for i in body if i.get("type") == "message"]
    assert texts[-2:] == [("user", "hello"), ("developer", "CTX-FROM-HOOK")]
    _, completed = hook_messages(server, mark)
    assert completed["params"]["run"]["entries"] == [{"kind": "context", "text": "CTX-FROM-HOOK"}]
    assert completed["params"]["run"]["status"] == "completed"
    stdin = json.loads((hook_dir / "stdin.json").read_text())
    assert (stdin["hook_event_name"], stdin["prompt"]) == ("UserPromptSubmit", "hello")
    # The hook ran before the user's message was announced, as in Codex.
    methods = [m.get("method") for m in server.since(mark)]
    assert methods.index("hook/completed") < methods.index("item/started")


async def test_a_hanging_hook_is_killed_at_its_timeout(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    fake_model.add(script.text_reply("ok"))
    server = await start_app()
    hook_dir = tmp_path / "hook"
    body = f'sleep 300 & echo $! > "{hook_dir}/pid"; wait'
    await trust(
        server, await configure(server, "UserPromptSubmit", str(hook_script(hook_dir, body)), seconds=1)
    )
    _, mark = await run_turn(server, workdir, "hello")

    _, completed = hook_messages(server, mark)
    run = completed["params"]["run"]
    assert (run["status"], run["entries"]) == (
        "failed",
        [{"kind": "error", "text": "hook timed out after 1s"}],
    )
    assert 1000 <= run["durationMs"] < 10_000
    # What the hook started went with it (at most a zombie waiting for its reaper).
    pid = int((hook_dir / "pid").read_text())
    assert _gone(pid)
    # The turn went on without the hook.
    assert [
        m["params"]["turn"]["status"] for m in server.since(mark) if m.get("method") == "turn/completed"
    ] == ["completed"]


def _gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X") or not os.path.exists(f"/proc/{pid}")


async def test_a_blocked_prompt_never_reaches_the_model(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    # Codex: the hook is `blocked` with its stderr, no user message item, no model request, and
    # the turn completes empty.
    server = await start_app()
    hook_dir = tmp_path / "hook"
    command = hook_script(hook_dir, 'echo "prompt refused" >&2; exit 2')
    await trust(server, await configure(server, "UserPromptSubmit", str(command)))
    _, mark = await run_turn(server, workdir, "do something risky")

    assert fake_model.requests == []
    seen = server.since(mark)
    assert not [m for m in seen if m.get("method") == "item/started"]
    _, completed = hook_messages(server, mark)
    run = completed["params"]["run"]
    assert (run["status"], run["entries"]) == ("blocked", [{"kind": "feedback", "text": "prompt refused"}])
    (done,) = [m for m in seen if m.get("method") == "turn/completed"]
    assert (done["params"]["turn"]["status"], done["params"]["turn"]["items"]) == ("completed", [])


async def test_hooks_list_for_a_thread_answers_as_codex(
    start_app: StartApp, workdir: Path, tmp_path: Path
) -> None:
    server = await start_app()
    hook = await configure(server, "Stop", str(hook_script(tmp_path / "hook", "exit 0")))
    started = await server.request("thread/start", {"cwd": str(workdir)})
    listed = await server.request("hooks/list", {"threadId": started["thread"]["id"]})
    assert [(e["cwd"], [h["key"] for h in e["hooks"]]) for e in listed["data"]] == [
        (str(workdir), [hook["key"]])
    ]
    # Codex 0.169.0's refusals, all -32600.
    missing = "01a23358-4fc6-7c51-844a-4668ff5884f5"
    refusals: list[tuple[dict[str, Any], str]] = [
        ({"threadId": "x", "cwds": ["/tmp"]}, "specify either threadId or cwds"),
        (
            {"threadId": "nope"},
            "invalid thread id: invalid character: expected an optional prefix of "
            "`urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1",
        ),
        ({"threadId": missing}, f"thread not found: {missing}"),
    ]
    for params, message in refusals:
        with pytest.raises(RpcErrorReply) as caught:
            await server.request("hooks/list", params)
        assert (caught.value.code, caught.value.message) == (-32600, message)


async def test_a_stop_hook_that_blocks_keeps_the_turn_going_with_its_reason(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    # Codex: a `hookPrompt` item holds the reason, the model gets it as a user message wrapped in
    # `<hook_prompt hook_run_id="…">`, and the next Stop hook sees `stop_hook_active: true`.
    fake_model.add(script.text_reply("done"), script.text_reply("done again"))
    server = await start_app()
    hook_dir = tmp_path / "hook"
    flag = hook_dir / "asked"
    body = f'[ -f "{flag}" ] && exit 0; touch "{flag}"; echo "keep going please" >&2; exit 2'
    hook = await configure(server, "Stop", str(hook_script(hook_dir, body)))
    await trust(server, hook)
    thread_id, mark = await run_turn(server, workdir, "hello")

    run_id = f"stop:0:{hook['sourcePath']}"
    assert len(fake_model.requests) == 2
    last = fake_model.requests[1].body["input"][-1]
    assert (last["role"], last["content"][0]["text"]) == (
        "user",
        f'<hook_prompt hook_run_id="{run_id}">keep going please</hook_prompt>',
    )
    done = [m["params"]["item"] for m in server.since(mark) if m.get("method") == "item/completed"]
    (prompt,) = [i for i in done if i["type"] == "hookPrompt"]
    assert prompt["fragments"] == [{"text": "keep going please", "hookRunId": run_id}]
    statuses = [
        m["params"]["run"]["status"] for m in hook_messages(server, mark) if m["method"] == "hook/completed"
    ]
    assert statuses == ["blocked", "completed"]
    stdin = json.loads((hook_dir / "stdin.json").read_text())
    assert (stdin["stop_hook_active"], stdin["last_assistant_message"]) == (True, "done again")
    # The prompt stays in the thread.
    read = await server.request("thread/read", {"threadId": thread_id, "includeTurns": True})
    kinds = [i["type"] for t in read["thread"]["turns"] for i in t["items"]]
    assert "hookPrompt" in kinds
