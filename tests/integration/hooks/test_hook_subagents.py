"""SubagentStart and SubagentStop, as Codex 0.169.0 runs them (observed: a parent spawns a child
with `spawn_agent`, every event's hook dumps its stdin): the child's first turn runs SubagentStart
instead of SessionStart and its turn ends with SubagentStop instead of Stop, both reported on the
child's thread and turn (SubagentStart with scope `thread`); on their stdin `session_id` is the
parent's thread, `agent_id` the child's, `agent_type` `default`, and SubagentStop adds
`stop_hook_active`, `last_assistant_message` (the child's answer) and `agent_transcript_path`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tests.integration.hooks.support import hook_messages, trust
from tests.integration.test_subagents import CHILD_TASK, agent_call, is_child
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

EVENTS = ("SessionStart", "SubagentStart", "SubagentStop", "Stop")


async def test_a_sub_agent_runs_subagent_start_and_subagent_stop_in_place_of_its_session_hooks(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    fake_model.add(
        script.reply(agent_call("spawn_agent", {"message": CHILD_TASK}, "call_spawn")),
        script.text_reply("parent done"),
    )
    fake_model.add_for(is_child, script.text_reply("child hi"))
    dumps = tmp_path / "dumps"
    dumps.mkdir()
    hook = tmp_path / "hook.sh"
    hook.write_text(f'#!/bin/sh\ncat > "{dumps}/$1.json"\n')
    hook.chmod(0o755)
    server = await start_app()
    groups = {e: [{"hooks": [{"type": "command", "command": f"{hook} {e}", "timeout": 10}]}] for e in EVENTS}
    edits = [{"keyPath": f"hooks.{e}", "value": g, "mergeStrategy": "replace"} for e, g in groups.items()]
    await server.request("config/batchWrite", {"edits": edits})
    (entry,) = (await server.request("hooks/list", {"cwds": []}))["data"]
    for listed in entry["hooks"]:
        await trust(server, listed)

    thread = await server.request("thread/start", {"cwd": str(workdir), "approvalPolicy": "never"})
    parent = thread["thread"]["id"]
    mark = server.mark()
    await server.request("turn/start", {"threadId": parent, "input": [{"type": "text", "text": "spawn"}]})
    spawned = await server.notification(
        "item/completed", after=mark, where=lambda p: p["item"]["type"] == "collabAgentToolCall"
    )
    child = spawned["params"]["item"]["receiverThreadIds"][0]
    await server.notification("turn/completed", after=mark, where=lambda p: p["threadId"] == parent)
    done = await server.notification("turn/completed", after=mark, where=lambda p: p["threadId"] == child)
    child_turn = done["params"]["turn"]["id"]

    runs: dict[str, dict[str, Any]] = {
        m["params"]["run"]["eventName"] + "@" + m["params"]["threadId"]: m["params"]
        for m in hook_messages(server, mark)
        if m["method"] == "hook/completed"
    }
    assert sorted(runs) == sorted(
        [f"sessionStart@{parent}", f"stop@{parent}", f"subagentStart@{child}", f"subagentStop@{child}"]
    )
    start, stop = runs[f"subagentStart@{child}"], runs[f"subagentStop@{child}"]
    assert (start["turnId"], start["run"]["scope"], start["run"]["status"]) == (
        child_turn,
        "thread",
        "completed",
    )
    assert (stop["turnId"], stop["run"]["scope"], stop["run"]["status"]) == (child_turn, "turn", "completed")

    began = json.loads((dumps / "SubagentStart.json").read_text())
    assert {k: began[k] for k in ("session_id", "turn_id", "hook_event_name", "agent_id", "agent_type")} == {
        "session_id": parent,
        "turn_id": child_turn,
        "hook_event_name": "SubagentStart",
        "agent_id": child,
        "agent_type": "default",
    }
    ended = json.loads((dumps / "SubagentStop.json").read_text())
    keys = (
        "session_id",
        "hook_event_name",
        "agent_id",
        "agent_type",
        "stop_hook_active",
        "last_assistant_message",
    )
    assert {k: ended[k] for k in keys} == {
        "session_id": parent,
        "hook_event_name": "SubagentStop",
        "agent_id": child,
        "agent_type": "default",
        "stop_hook_active": False,
        "last_assistant_message": "child hi",
    }
    assert "agent_transcript_path" in ended
    assert json.loads((dumps / "Stop.json").read_text())["session_id"] == parent
