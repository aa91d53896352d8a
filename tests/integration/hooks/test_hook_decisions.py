"""Hooks that decide, as Codex 0.169.0's do (observed on the binary against the fake model): patches
go through Pre/PostToolUse like commands; a PostToolUse block replaces the output the model reads;
a PermissionRequest hook allows or denies in the user's place; a trusted project's hooks are listed
after the user's."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import StartApp
from tests.integration.hooks.support import (
    configure,
    function_outputs,
    hook_messages,
    hook_script,
    run_turn,
    trust,
)
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

PATCH = "*** Begin Patch\n*** Add File: added.txt\n+hello\n*** End Patch\n"


async def test_a_pre_tool_use_hook_guards_patches_too(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    # Codex: `tool_name: "apply_patch"`, `tool_input: {"command": <the patch>}`; blocked like a command.
    fake_model.add(
        script.reply(script.custom_tool_call("apply_patch", PATCH, "call_p")), script.text_reply("ok")
    )
    server = await start_app()
    hook_dir = tmp_path / "hook"
    command = hook_script(hook_dir, 'echo "no patches" >&2; exit 2')
    await trust(server, await configure(server, "PreToolUse", str(command), matcher=".*"))
    await run_turn(server, workdir, "add a file")

    assert not (workdir / "added.txt").exists()
    outputs = {
        i["call_id"]: i["output"]
        for i in fake_model.requests[1].body["input"]
        if i.get("type") == "custom_tool_call_output"
    }
    assert outputs["call_p"] == f"Command blocked by PreToolUse hook: no patches. Command: {PATCH}"
    stdin = json.loads((hook_dir / "stdin.json").read_text())
    assert (stdin["tool_name"], stdin["tool_input"]) == ("apply_patch", {"command": PATCH})


async def test_a_post_tool_use_hook_replaces_the_output_and_adds_context(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    # Codex: `decision: "block"` puts the reason in place of the output; `additionalContext` goes to
    # the model as a developer message just before the call's output; entries: context, feedback.
    fake_model.add(
        script.reply(script.function_call("exec_command", {"cmd": "echo secret-output"}, "call_1")),
        script.text_reply("ok"),
    )
    server = await start_app()
    answer = {
        "decision": "block",
        "reason": "post says no",
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "POST-CTX"},
    }
    hook_dir = tmp_path / "hook"
    command = hook_script(hook_dir, f"echo '{json.dumps(answer)}'")
    await trust(server, await configure(server, "PostToolUse", str(command)))
    _, mark = await run_turn(server, workdir, "run it")

    body = fake_model.requests[1].body["input"]
    call_at = next(n for n, i in enumerate(body) if i.get("type") == "function_call")
    context, output = body[call_at + 1], body[call_at + 2]
    assert (context["role"], context["content"][0]["text"]) == ("developer", "POST-CTX")
    assert (output["type"], output["output"]) == ("function_call_output", "post says no")
    _, completed = hook_messages(server, mark)
    assert completed["params"]["run"]["status"] == "blocked"
    assert completed["params"]["run"]["entries"] == [
        {"kind": "context", "text": "POST-CTX"},
        {"kind": "feedback", "text": "post says no"},
    ]
    stdin = json.loads((hook_dir / "stdin.json").read_text())
    assert "secret-output" in stdin["tool_response"]


async def test_a_permission_request_hook_decides_instead_of_the_user(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    # Codex: under `untrusted` approvals the hook runs after PreToolUse, where the user would be
    # asked (stdin: tool_name, tool_input, no tool_use_id); `behavior: "allow"` runs the command
    # without asking, `deny` refuses it with Codex's sentence and no item.
    fake_model.add(
        script.reply(script.function_call("exec_command", {"cmd": "touch allowed"}, "call_1")),
        script.text_reply("ok"),
        script.reply(script.function_call("exec_command", {"cmd": "touch denied"}, "call_2")),
        script.text_reply("ok"),
    )
    server = await start_app()
    hook_dir = tmp_path / "hook"
    allow = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "deny", "message": "perm says no"},
        }
    }
    body = (
        f"grep -q denied '{hook_dir}/stdin.json' && echo '{json.dumps(deny)}' || echo '{json.dumps(allow)}'"
    )
    await trust(server, await configure(server, "PermissionRequest", str(hook_script(hook_dir, body))))

    thread_id, mark = await run_turn(server, workdir, "first", approval="untrusted")
    assert (workdir / "allowed").exists()
    assert not [m for m in server.since(mark) if "id" in m and "method" in m]  # nobody was asked
    stdin = json.loads((hook_dir / "stdin.json").read_text())
    assert (stdin["hook_event_name"], stdin["tool_name"], stdin["tool_input"]) == (
        "PermissionRequest",
        "Bash",
        {"command": "touch allowed"},
    )
    assert "tool_use_id" not in stdin and stdin["permission_mode"] == "default"

    _, mark = await run_turn(server, workdir, "second", thread_id)
    assert not (workdir / "denied").exists()
    assert function_outputs(fake_model)["call_2"] == (
        'exec_command failed: CreateProcess { message: "Rejected(\\"perm says no\\")" }'
    )
    started = [m["params"]["item"]["type"] for m in server.since(mark) if m.get("method") == "item/started"]
    assert "commandExecution" not in started


async def test_a_trusted_projects_hooks_are_listed_after_the_users_and_an_untrusted_ones_are_not(
    start_app: StartApp, workdir: Path, tmp_path: Path
) -> None:
    # Codex 0.169.0: config.toml's hooks, then each `.codex/config.toml` from the repository root
    # down to the cwd, `source: "project"`, only when the project is trusted; a project file's own
    # `hooks.state` trusts nothing.
    (workdir / ".git").mkdir()
    sub = workdir / "sub"
    for folder, word in ((workdir, "proj"), (sub, "sub")):
        (folder / ".codex").mkdir(parents=True)
        (folder / ".codex" / "config.toml").write_text(
            f'[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "echo {word}"\n'
            f'[hooks.state."{folder}/.codex/config.toml:stop:0:0"]\ntrusted_hash = "sha256:x"\n'
        )
    server = await start_app()
    await configure(server, "Stop", "echo user")

    async def listed() -> list[tuple[str, str, str, int, str]]:
        (entry,) = (await server.request("hooks/list", {"cwds": [str(sub)]}))["data"]
        return [
            (h["command"], h["source"], h["sourcePath"], h["displayOrder"], h["trustStatus"])
            for h in entry["hooks"]
        ]

    home_config = str(tmp_path / "home" / "config.toml")
    assert await listed() == [("echo user", "user", home_config, 0, "untrusted")]
    trust = {
        "keyPath": "projects",
        "value": {str(workdir): {"trust_level": "trusted"}},
        "mergeStrategy": "upsert",
    }
    await server.request("config/batchWrite", {"edits": [trust]})
    assert await listed() == [
        ("echo user", "user", home_config, 0, "untrusted"),
        ("echo proj", "project", f"{workdir}/.codex/config.toml", 1, "untrusted"),
        ("echo sub", "project", f"{sub}/.codex/config.toml", 2, "untrusted"),
    ]
