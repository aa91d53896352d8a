"""`tether exec --json` prints the events of `codex exec --json` 0.169.0, field for field.

The expected streams below are what the real `codex exec` printed for the same scripted model
answers (ids and paths aside); tests/support/exec_shapes.py holds the per-event shapes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.exec_run import git_repo, run_exec
from tests.support.exec_shapes import validate_stream
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

PATCH = (
    "*** Begin Patch\n*** Add File: new.txt\n+first\n"
    "*** Update File: README.md\n@@\n-old\n+new\n*** End Patch"
)
PLAN = {"plan": [{"step": "look around", "status": "in_progress"}, {"step": "write", "status": "pending"}]}
PLAN_DONE = {
    "plan": [{"step": "look around", "status": "completed"}, {"step": "write", "status": "completed"}]
}


def _no_ids(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {**e, "item": {k: v for k, v in e["item"].items() if k != "id"}} if "item" in e else e for e in events
    ]


async def test_a_turn_with_reasoning_a_plan_commands_and_a_patch_streams_codex_events(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    (repo / "README.md").write_text("old\n")
    fake_model.add(
        script.reply(
            script.reasoning(["**Looking**\n\nI will list files."]),
            script.function_call("update_plan", PLAN, "call_plan_1"),
            script.function_call("exec_command", {"cmd": "echo hi", "yield_time_ms": 2000}, "call_exec_1"),
            usage=script.usage(100, 20, cached_input_tokens=40, reasoning_output_tokens=5),
        ),
        script.reply(
            script.custom_tool_call("apply_patch", PATCH, "call_patch_1"),
            script.function_call("exec_command", {"cmd": "exit 3", "yield_time_ms": 2000}, "call_exec_2"),
            usage=script.usage(200, 30),
        ),
        script.reply(
            script.function_call("update_plan", PLAN_DONE, "call_plan_2"), usage=script.usage(300, 10)
        ),
        script.reply(script.message("All done."), usage=script.usage(400, 5, cached_input_tokens=100)),
    )
    done = await run_exec(
        fake_model.base_url, tmp_path / "home", "--json", "-s", "workspace-write", "--cd", str(repo), "Work"
    )
    assert done.code == 0, done.stderr
    events = done.events
    validate_stream(events)
    thread_id = events[0]["thread_id"]
    assert thread_id
    commands = [
        e["item"]["command"]
        for e in events
        if e["type"] == "item.started" and e["item"]["type"] == "command_execution"
    ]
    assert len(commands) == 2 and "echo hi" in commands[0] and "exit 3" in commands[1]
    todo = [{"text": "look around", "completed": False}, {"text": "write", "completed": False}]
    todo_done = [{"text": "look around", "completed": True}, {"text": "write", "completed": True}]
    changes = [
        {"path": str(repo / "README.md"), "kind": "update"},
        {"path": str(repo / "new.txt"), "kind": "add"},
    ]

    def item(event_type: str, **fields: object) -> dict[str, Any]:
        return {"type": event_type, "item": fields}

    def command(event_type: str, cmd: str, output: str, code: int | None, status: str) -> dict[str, Any]:
        return item(
            event_type,
            type="command_execution",
            command=cmd,
            aggregated_output=output,
            exit_code=code,
            status=status,
        )

    usage = {
        "input_tokens": 1000,
        "cached_input_tokens": 140,
        "cache_write_input_tokens": 0,
        "output_tokens": 65,
        "reasoning_output_tokens": 5,
    }
    expected = [
        {"type": "thread.started", "thread_id": thread_id},
        {"type": "turn.started"},
        item("item.completed", type="reasoning", text="**Looking**\n\nI will list files."),
        item("item.started", type="todo_list", items=todo),
        command("item.started", commands[0], "", None, "in_progress"),
        command("item.completed", commands[0], "hi\n", 0, "completed"),
        item("item.started", type="file_change", changes=changes, status="in_progress"),
        item("item.completed", type="file_change", changes=changes, status="completed"),
        command("item.started", commands[1], "", None, "in_progress"),
        command("item.completed", commands[1], "", 3, "failed"),
        item("item.updated", type="todo_list", items=todo_done),
        item("item.completed", type="agent_message", text="All done."),
        item("item.completed", type="todo_list", items=todo_done),
        {"type": "turn.completed", "usage": usage},
    ]
    assert _no_ids(events) == expected
    ids = [e["item"]["id"] for e in events if "item" in e]
    assert ids[:4] == ["item_0", "item_1", "item_2", "item_2"]  # started/completed share an id
    assert {e["item"]["id"] for e in events if "item" in e and e["item"]["type"] == "todo_list"} == {"item_1"}
    assert (repo / "new.txt").read_text() == "first\n"


async def test_a_failing_model_gives_an_error_then_turn_failed_and_exit_1(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    fake_model.add(script.failed("server_error", "the model blew up"))
    done = await run_exec(fake_model.base_url, tmp_path / "home", "--json", "--cd", str(repo), "Go")
    assert done.code == 1
    validate_stream(done.events)
    assert [e["type"] for e in done.events] == ["thread.started", "turn.started", "error", "turn.failed"]
    assert done.events[2] == {"type": "error", "message": "the model blew up"}
    assert done.events[3] == {"type": "turn.failed", "error": {"message": "the model blew up"}}


async def test_a_retried_stream_error_is_a_top_level_error_and_the_turn_still_completes(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    fake_model.add(
        script.failed("server_error", "boom once"),
        script.reply(script.reasoning(["**A**\n\nfirst", "**B**\n\nsecond"]), script.message("Recovered.")),
    )
    args = ("--json", "-c", "model_providers.mock.stream_max_retries=2", "--cd", str(repo), "Go")
    done = await run_exec(fake_model.base_url, tmp_path / "home", *args)
    assert done.code == 0, done.stderr
    validate_stream(done.events)
    types = [e["type"] for e in done.events]
    assert types == [
        "thread.started",
        "turn.started",
        "error",
        "item.completed",
        "item.completed",
        "turn.completed",
    ]
    assert done.events[2]["message"] == "Reconnecting... 1/2 (boom once)"
    assert done.events[3]["item"]["text"] == "**A**\n\nfirst\n**B**\n\nsecond"  # summary parts, one per line


async def test_config_warnings_are_error_items_right_after_thread_started(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    fake_model.add(script.text_reply("Fine."))
    done = await run_exec(
        fake_model.base_url, tmp_path / "home", "--json", "-c", "no_such_key=1", "--cd", str(repo), "Go"
    )
    assert done.code == 0, done.stderr
    validate_stream(done.events)
    assert done.events[1]["type"] == "item.completed" and done.events[1]["item"]["type"] == "error"
    assert "no_such_key" in done.events[1]["item"]["message"]
    assert done.events[2] == {"type": "turn.started"}
