"""Hooks at a turn's interruption and a thread's end, as Codex 0.169.0 runs them (observed on the
binary against the fake model): Interrupt before the interrupted turn's `turn/completed`, with the
common stdin; SessionEnd when the thread is unloaded, with `reason: "other"`, no turn, no model, and
no notification."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tests.integration.hooks.support import configure, hook_messages, hook_script, trust
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


async def test_an_interrupt_hook_runs_before_the_interrupted_turn_ends(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    fake_model.add(script.reply(script.gated("hold"), script.message("never")))
    server = await start_app()
    hook_dir = tmp_path / "hook"
    await trust(server, await configure(server, "Interrupt", str(hook_script(hook_dir, "exit 0"))))
    started = await server.request("thread/start", {"cwd": str(workdir), "approvalPolicy": "never"})
    thread_id = started["thread"]["id"]
    mark = server.mark()
    turn = await server.request(
        "turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]}
    )
    await fake_model.wait_for_request(1)
    await server.request("turn/interrupt", {"threadId": thread_id, "turnId": turn["turn"]["id"]})
    done = await server.notification("turn/completed", after=mark)
    fake_model.release("hold")

    assert done["params"]["turn"]["status"] == "interrupted"
    methods = [m.get("method") for m in server.since(mark)]
    assert methods.index("hook/completed") < methods.index("turn/completed")
    _, completed = hook_messages(server, mark)
    run = completed["params"]["run"]
    assert (run["eventName"], run["status"], run["scope"]) == ("interrupt", "completed", "turn")
    stdin = json.loads((hook_dir / "stdin.json").read_text())
    assert (stdin["hook_event_name"], stdin["turn_id"], stdin["session_id"]) == (
        "Interrupt",
        turn["turn"]["id"],
        thread_id,
    )


async def test_a_session_end_hook_runs_when_the_thread_is_unloaded(
    start_app: StartApp, workdir: Path, tmp_path: Path
) -> None:
    server = await start_app("-c", "thread_unload_delay_secs=0")
    hook_dir = tmp_path / "hook"
    fifo = tmp_path / "ended"
    os.mkfifo(fifo)
    command = hook_script(hook_dir, f'cat "{hook_dir}/stdin.json" > "{fifo}"')
    await trust(server, await configure(server, "SessionEnd", str(command)))
    started = await server.request("thread/start", {"cwd": str(workdir)})
    thread_id = started["thread"]["id"]
    mark = server.mark()
    await server.request("thread/unsubscribe", {"threadId": thread_id})

    # The hook writing into the FIFO is what the test waits for (no polling).
    stdin = await _read_fifo(fifo)
    assert stdin == {
        "session_id": thread_id,
        "transcript_path": None,
        "cwd": str(workdir),
        "hook_event_name": "SessionEnd",
        "reason": "other",
    }
    await server.notification("thread/closed", after=mark)
    assert hook_messages(server, mark) == []


async def _read_fifo(fifo: Path) -> Any:
    reading = asyncio.create_task(asyncio.to_thread(fifo.read_text))
    try:
        return json.loads(await asyncio.wait_for(asyncio.shield(reading), 20))
    finally:
        if not reading.done():  # nobody wrote: open the other end so the reader thread ends
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            await reading


async def test_compact_hooks_run_around_a_compaction(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    # Codex: PreCompact before the contextCompaction item, PostCompact after it, `trigger: "manual"`
    # for thread/compact/start, and no permission mode on the stdin.
    fake_model.add(script.text_reply("done"), script.text_reply("the summary"))
    server = await start_app()
    pre, post = tmp_path / "pre", tmp_path / "post"
    await trust(server, await configure(server, "PreCompact", str(hook_script(pre, "exit 0"))))
    await trust(server, await configure(server, "PostCompact", str(hook_script(post, "exit 0"))))
    started = await server.request("thread/start", {"cwd": str(workdir)})
    thread_id = started["thread"]["id"]
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]})
    await server.notification("turn/completed", after=mark)
    mark = server.mark()
    await server.request("thread/compact/start", {"threadId": thread_id})
    await server.notification("turn/completed", after=mark)

    seen = [
        (
            m["method"],
            m["params"]["run"]["eventName"] if "run" in m["params"] else m["params"]["item"]["type"],
        )
        for m in server.since(mark)
        if m.get("method") in ("hook/started", "hook/completed", "item/started", "item/completed")
    ]
    assert seen == [
        ("hook/started", "preCompact"),
        ("hook/completed", "preCompact"),
        ("item/started", "contextCompaction"),
        ("item/completed", "contextCompaction"),
        ("hook/started", "postCompact"),
        ("hook/completed", "postCompact"),
    ]
    for folder, event in ((pre, "PreCompact"), (post, "PostCompact")):
        stdin = json.loads((folder / "stdin.json").read_text())
        assert (stdin["hook_event_name"], stdin["trigger"], stdin["session_id"]) == (
            event,
            "manual",
            thread_id,
        )
        assert "permission_mode" not in stdin


async def test_an_async_hook_runs_without_holding_the_turn_and_is_not_reported(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    # Codex 0.169.0 starts an `async = true` hook and goes on: no hook/started or hook/completed,
    # and what it prints does not reach the model.
    fake_model.add(script.text_reply("ok"))
    server = await start_app()
    hook_dir = tmp_path / "hook"
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    answer = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "LATE"}}
    command = hook_script(hook_dir, f"read line < '{gate}'; echo '{json.dumps(answer)}'")
    handler = {"type": "command", "command": str(command), "async": True, "timeout": 30}
    edit = {"keyPath": "hooks.UserPromptSubmit", "value": [{"hooks": [handler]}], "mergeStrategy": "replace"}
    await server.request("config/batchWrite", {"edits": [edit]})
    (entry,) = (await server.request("hooks/list", {"cwds": []}))["data"]
    assert entry["hooks"][0]["async"] is True
    await trust(server, entry["hooks"][0])
    started = await server.request("thread/start", {"cwd": str(workdir)})
    mark = server.mark()
    await server.request(
        "turn/start", {"threadId": started["thread"]["id"], "input": [{"type": "text", "text": "hi"}]}
    )
    done = await server.notification("turn/completed", after=mark)

    # The turn is over while the hook still waits at its gate.
    assert done["params"]["turn"]["status"] == "completed"
    assert hook_messages(server, mark) == []
    assert "LATE" not in json.dumps(fake_model.requests[0].body["input"])
    await asyncio.wait_for(asyncio.to_thread(gate.write_text, "go\n"), 20)
    stdin = json.loads((hook_dir / "stdin.json").read_text())
    assert (stdin["hook_event_name"], stdin["prompt"]) == ("UserPromptSubmit", "hi")
