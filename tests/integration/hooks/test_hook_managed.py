"""Managed hooks, as Codex 0.169.0 reads them (observed with `/etc/codex/requirements.toml`; Tether's
system folder is `$TETHER_SYSTEM_CONFIG_DIR`): the `[hooks]` table of requirements.toml holds hook
groups as config.toml does, plus `managed_dir`. They are listed first (source `system`, `isManaged`,
trust `managed`), keyed and sourced by `managed_dir` (the requirements file when it is unset), and
run without the user's trust. configRequirements/read shows the table, every event listed."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import StartApp
from tests.integration.hooks.support import function_outputs, hook_messages, hook_script, run_turn
from tests.support import schema
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


def requirements(folder: Path, command: str, managed_dir: Path | None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    head = f'managed_dir = "{managed_dir}"\n' if managed_dir else ""
    (folder / "requirements.toml").write_text(
        f'[hooks]\n{head}[[hooks.PreToolUse]]\nmatcher = "Bash"\n[[hooks.PreToolUse.hooks]]\n'
        f'type = "command"\ncommand = "{command}"\ntimeout = 20\nstatusMessage = "managed check"\n'
    )
    return folder


async def test_managed_hooks_are_listed_first_and_run_without_the_users_trust(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", {"cmd": "touch marker"}, "call_1")),
        script.text_reply("understood"),
    )
    managed_dir = tmp_path / "managed"
    command = hook_script(managed_dir, 'echo "policy says no" >&2; exit 2')
    system = requirements(tmp_path / "system", str(command), managed_dir)
    server = await start_app(env={"TETHER_SYSTEM_CONFIG_DIR": str(system)})
    group = {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}
    edit = {"keyPath": "hooks.PreToolUse", "value": [group], "mergeStrategy": "replace"}
    await server.request("config/batchWrite", {"edits": [edit]})

    listed = await server.request("hooks/list", {"cwds": [str(workdir)]})
    assert schema.response_errors("hooks/list", listed) == []
    (entry,) = listed["data"]
    managed, user = entry["hooks"]
    assert {
        k: managed[k] for k in ("key", "sourcePath", "source", "isManaged", "trustStatus", "enabled")
    } == {
        "key": f"{managed_dir}:pre_tool_use:0:0",
        "sourcePath": str(managed_dir),
        "source": "system",
        "isManaged": True,
        "trustStatus": "managed",
        "enabled": True,
    }
    assert (managed["displayOrder"], managed["command"], managed["timeoutSec"]) == (0, str(command), 20)
    assert (user["source"], user["displayOrder"], user["isManaged"], user["trustStatus"]) == (
        "user",
        1,
        False,
        "untrusted",
    )

    # Nobody trusted it: it runs anyway, and blocks.
    _, mark = await run_turn(server, workdir, "make a marker")
    assert not (workdir / "marker").exists()
    assert function_outputs(fake_model)["call_1"] == (
        "Command blocked by PreToolUse hook: policy says no. Command: touch marker"
    )
    _, completed = hook_messages(server, mark)
    run = completed["params"]["run"]
    assert (run["id"], run["source"], run["sourcePath"], run["status"]) == (
        f"pre-tool-use:0:{managed_dir}:call_1",
        "system",
        str(managed_dir),
        "blocked",
    )

    read = await server.request("configRequirements/read", {})
    assert schema.response_errors("configRequirements/read", read) == []
    hooks = read["requirements"]["hooks"]
    assert hooks["managedDir"] == str(managed_dir) and hooks["windowsManagedDir"] is None
    assert hooks["Stop"] == [] and list(hooks)[:4] == [
        "PreModelRequest",
        "PostModelRequest",
        "managedDir",
        "windowsManagedDir",
    ]
    assert hooks["PreToolUse"] == [
        {
            "matcher": "Bash",
            "hooks": [
                {
                    "type": "command",
                    "command": str(command),
                    "commandWindows": None,
                    "timeoutSec": 20,
                    "async": False,
                    "statusMessage": "managed check",
                    "additionalContextLimit": None,
                }
            ],
        }
    ]

    # Without managed_dir the requirements file is the hooks' source.
    requirements(system, str(command), None)
    (entry,) = (await server.request("hooks/list", {"cwds": [str(workdir)]}))["data"]
    assert (entry["hooks"][0]["key"], entry["hooks"][0]["sourcePath"]) == (
        f"{system / 'requirements.toml'}:pre_tool_use:0:0",
        str(system / "requirements.toml"),
    )


async def test_a_managed_hook_written_between_two_turns_runs_in_the_second_and_not_once_it_is_gone(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    # A turn's hooks are kept under the stats of the files they come from: an edit must still
    # reach the very next turn of a thread already running, both ways.
    for n in (1, 2, 3):
        fake_model.add(
            script.reply(script.function_call("exec_command", {"cmd": f"touch marker{n}"}, f"call_{n}")),
            script.text_reply("ok"),
        )
    system = tmp_path / "system"
    system.mkdir()
    server = await start_app(env={"TETHER_SYSTEM_CONFIG_DIR": str(system)})
    thread_id, _ = await run_turn(server, workdir, "first")
    assert (workdir / "marker1").exists()

    command = hook_script(tmp_path / "managed", 'echo "policy says no" >&2; exit 2')
    requirements(system, str(command), None)
    await run_turn(server, workdir, "second", thread_id)
    assert not (workdir / "marker2").exists()
    blocked = function_outputs(fake_model)["call_2"]
    assert blocked.startswith("Command blocked by PreToolUse hook: policy says no")

    (system / "requirements.toml").unlink()
    await run_turn(server, workdir, "third", thread_id)
    assert (workdir / "marker3").exists()
