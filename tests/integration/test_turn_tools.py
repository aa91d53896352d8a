"""Tool loops: exec_command, apply_patch, update_plan, against the fake model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import StartApp, StartServer
from tests.support.rpcclient import RpcClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

PATCH = """*** Begin Patch
*** Add File: notes/hello.txt
+hello
+world
*** Update File: main.py
@@
-print("old")
+print("new")
*** End Patch
"""


async def _thread(server: RpcClient, workdir: Path, sandbox: str = "danger-full-access") -> str:
    result = await server.request("thread/start", {"cwd": str(workdir), "sandbox": sandbox})
    return str(result["thread"]["id"])


async def _turn(server: RpcClient, thread_id: str, text: str, **extra: Any) -> tuple[int, dict[str, Any]]:
    mark = server.mark()
    params = {"threadId": thread_id, "input": [{"type": "text", "text": text}], **extra}
    await server.request("turn/start", params)
    done = await server.notification("turn/completed", after=mark)
    return mark, done["params"]["turn"]


def _output(fake: FakeResponsesServer, call_id: str) -> str:
    """What the model was told a call returned (from the last request that carried it)."""
    for request in reversed(fake.requests):
        for item in request.body["input"]:
            if item.get("call_id") == call_id and item["type"].endswith("_output"):
                return str(item["output"])
    raise AssertionError(f"no output for {call_id} in any model request")


def _items(server: RpcClient, mark: int, method: str) -> list[dict[str, Any]]:
    return [m["params"]["item"] for m in server.since(mark) if m.get("method") == method]


async def test_exec_then_apply_patch_then_a_final_message_leaves_the_files_on_disk(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    (workdir / "main.py").write_text('print("old")\n')
    fake_model.add(
        script.reply(script.function_call("exec_command", {"cmd": "echo listing && ls"}, "call_exec")),
        script.reply(script.custom_tool_call("apply_patch", PATCH, "call_patch")),
        script.text_reply("Done: added notes/hello.txt and updated main.py."),
    )
    server = await start_app()
    thread_id = await _thread(server, workdir)
    mark, turn = await _turn(server, thread_id, "make the change")

    assert turn["status"] == "completed"
    assert (workdir / "notes/hello.txt").read_text() == "hello\nworld\n"
    assert (workdir / "main.py").read_text() == 'print("new")\n'

    completed = _items(server, mark, "item/completed")
    assert [i["type"] for i in completed] == ["userMessage", "commandExecution", "fileChange", "agentMessage"]
    command, change = completed[1], completed[2]
    assert command["status"] == "completed" and command["exitCode"] == 0
    assert "listing" in command["aggregatedOutput"] and "main.py" in command["aggregatedOutput"]
    assert command["command"].endswith("'echo listing && ls'")
    assert change["status"] == "completed"
    kinds = {Path(c["path"]).name: c["kind"]["type"] for c in change["changes"]}
    assert kinds == {"hello.txt": "add", "main.py": "update"}
    deltas = [m for m in server.since(mark) if m.get("method") == "item/commandExecution/outputDelta"]
    assert "".join(d["params"]["delta"] for d in deltas) == command["aggregatedOutput"]
    diff = [m for m in server.since(mark) if m.get("method") == "turn/diff/updated"][-1]["params"]["diff"]
    assert "+hello" in diff and '+print("new")' in diff

    # The model saw each tool's output in the next request.
    exec_out = _output(fake_model, "call_exec")
    assert "Process exited with code 0" in exec_out and "listing" in exec_out
    assert "Success. Updated the following files:" in _output(fake_model, "call_patch")
    kinds_sent = {i["call_id"]: i["type"] for i in fake_model.requests[-1].body["input"] if "output" in i}
    assert kinds_sent == {"call_exec": "function_call_output", "call_patch": "custom_tool_call_output"}


async def test_a_failing_command_is_a_failed_item_and_the_model_sees_the_exit_code(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", {"cmd": "echo oops >&2; exit 3"}, "call_1")),
        script.text_reply("It failed."),
    )
    server = await start_app()
    mark, _turn_json = await _turn(server, await _thread(server, workdir), "run it")
    command = next(i for i in _items(server, mark, "item/completed") if i["type"] == "commandExecution")
    assert command["status"] == "failed" and command["exitCode"] == 3
    assert command["aggregatedOutput"].strip() == "oops"
    out = _output(fake_model, "call_1")
    assert "Process exited with code 3" in out


async def test_a_patch_that_does_not_apply_changes_nothing_and_tells_the_model_why(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    (workdir / "a.txt").write_text("alpha\n")
    bad = (
        "*** Begin Patch\n*** Add File: b.txt\n+new\n*** Update File: a.txt\n@@\n-missing line\n+x\n"
        "*** End Patch\n"
    )
    fake_model.add(
        script.reply(script.custom_tool_call("apply_patch", bad, "call_p")), script.text_reply("ok")
    )
    server = await start_app()
    _, turn = await _turn(server, await _thread(server, workdir), "patch")
    assert turn["status"] == "completed"
    assert not (workdir / "b.txt").exists()
    assert (workdir / "a.txt").read_text() == "alpha\n"
    out = _output(fake_model, "call_p")
    assert out.startswith("apply_patch verification failed:")
    assert "missing line" in out


async def test_a_patch_escaping_the_workspace_is_refused(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    escape = "*** Begin Patch\n*** Add File: ../outside.txt\n+x\n*** End Patch\n"
    fake_model.add(
        script.reply(script.custom_tool_call("apply_patch", escape, "call_p")), script.text_reply("ok")
    )
    server = await start_app()
    policy = {"type": "workspaceWrite", "excludeSlashTmp": True, "excludeTmpdirEnvVar": True}
    thread_id = await _thread(server, workdir, "workspace-write")
    await _turn(server, thread_id, "patch", sandboxPolicy=policy, approvalPolicy="never")
    assert not (tmp_path / "outside.txt").exists()
    out = _output(fake_model, "call_p")
    assert out.startswith("patch rejected")


async def test_update_plan_emits_a_plan_update_and_a_plan_item(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    plan = {
        "explanation": "two steps",
        "plan": [{"step": "read", "status": "completed"}, {"step": "write", "status": "in_progress"}],
    }
    fake_model.add(
        script.reply(script.function_call("update_plan", plan, "call_plan")), script.text_reply("ok")
    )
    server = await start_app()
    mark, _ = await _turn(server, await _thread(server, workdir), "plan it")
    update = next(m for m in server.since(mark) if m.get("method") == "turn/plan/updated")
    assert update["params"]["plan"] == [
        {"step": "read", "status": "completed"},
        {"step": "write", "status": "inProgress"},
    ]
    assert update["params"]["explanation"] == "two steps"
    assert any(i["type"] == "plan" for i in _items(server, mark, "item/completed"))
    out = _output(fake_model, "call_plan")
    assert out == "Plan updated"


async def test_unknown_tools_and_bad_arguments_are_reported_to_the_model(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(
            script.function_call("no_such_tool", {}, "call_a"),
            script.function_call("exec_command", "{not json", "call_b"),
        ),
        script.text_reply("ok"),
    )
    server = await start_app()
    _, turn = await _turn(server, await _thread(server, workdir), "go")
    assert turn["status"] == "completed"
    outputs = {
        i["call_id"]: i["output"]
        for i in fake_model.requests[1].body["input"]
        if "call_id" in i and i["type"] == "function_call_output"
    }
    assert outputs["call_a"] == "unsupported call: no_such_tool"
    assert outputs["call_b"].startswith("failed to parse function arguments")


async def test_a_sandboxed_command_can_write_in_the_workspace_but_not_outside(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    fake_model.add(
        script.reply(script.function_call("exec_command", {"cmd": "touch made.txt"}, "call_1")),
        script.reply(script.function_call("exec_command", {"cmd": f"touch {outside}"}, "call_2")),
        script.text_reply("ok"),
    )
    server = await start_app()
    policy = {"type": "workspaceWrite", "excludeSlashTmp": True, "excludeTmpdirEnvVar": True}
    thread_id = await _thread(server, workdir, "workspace-write")
    mark, _turn_json = await _turn(server, thread_id, "touch", sandboxPolicy=policy, approvalPolicy="never")
    assert (workdir / "made.txt").exists()
    assert not outside.exists()
    assert "Read-only file system" in _output(fake_model, "call_2")
    commands = [i for i in _items(server, mark, "item/completed") if i["type"] == "commandExecution"]
    assert [c["status"] for c in commands] == ["completed", "failed"]


async def test_commands_do_not_see_credentials_from_the_daemon_environment(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    call = script.function_call("exec_command", {"cmd": "env"}, "call_env")
    fake_model.add(script.reply(call), script.text_reply("ok"))
    server = await start_app(env={"OPENAI_API_KEY": "sk-should-not-leak", "HARMLESS_VAR": "visible"})
    await _turn(server, await _thread(server, workdir), "env")
    output = _output(fake_model, "call_env")
    assert "HARMLESS_VAR=visible" in output
    assert "sk-should-not-leak" not in output
    assert "CODEX_THREAD_ID=" in output


async def test_sandboxed_commands_cannot_see_the_daemons_home_or_control_socket(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    probe = f"ls -a {home}; ls -a {home}/app-server-control; cat {home}/tether.sqlite | wc -c"
    fake_model.add(
        script.reply(script.function_call("exec_command", {"cmd": probe}, "c1")), script.text_reply("ok")
    )
    server = await start_server("--listen", "stdio://", "--listen", "unix://", home=home)
    assert (home / "app-server-control" / "app-server-control.sock").exists()
    policy = {"type": "workspaceWrite", "excludeSlashTmp": True, "excludeTmpdirEnvVar": True}
    thread_id = await _thread(server, workdir, "workspace-write")
    await _turn(server, thread_id, "look", sandboxPolicy=policy, approvalPolicy="never")
    listing = _output(fake_model, "c1").split("Output:\n", 1)[1]
    assert "bwrap" not in listing  # the sandbox itself started fine
    lines = listing.splitlines()
    assert "tether.sqlite" not in lines and "app-server-control.sock" not in lines  # no directory entries
    assert lines[-1] == "0"  # the database reads as nothing


async def test_a_command_whose_sandbox_cannot_be_set_up_is_announced_then_failed(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    (tmp_path / "elsewhere").mkdir()
    (workdir / ".git").symlink_to(tmp_path / "elsewhere")  # a protected path the sandbox refuses
    fake_model.add(
        script.reply(script.function_call("exec_command", {"cmd": "touch made.txt"}, "call_1")),
        script.text_reply("ok"),
    )
    server = await start_app()
    policy = {"type": "workspaceWrite", "excludeSlashTmp": True, "excludeTmpdirEnvVar": True}
    thread_id = await _thread(server, workdir, "workspace-write")
    mark, _turn_json = await _turn(server, thread_id, "touch", sandboxPolicy=policy, approvalPolicy="never")
    seen = [
        (m["method"], m["params"]["item"]["status"])
        for m in server.since(mark)
        if m.get("method") in ("item/started", "item/completed")
        and m["params"]["item"]["type"] == "commandExecution"
    ]
    assert seen == [("item/started", "inProgress"), ("item/completed", "failed")]
    assert "is a symlink" in _output(fake_model, "call_1")
    assert not (workdir / "made.txt").exists()
