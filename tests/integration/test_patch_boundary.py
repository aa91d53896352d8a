"""apply_patch attacks through a real daemon: the fake model asks for the patch, the daemon decides.

Each test is an attack from issue 11 item 2 that, before patches were held to the sandbox's
boundary, wrote its file with no prompt: `.git/config` (an `fsmonitor` hook the next host
`git status` runs), `.git/HEAD`, a move into `.git/hooks`, a symlink leading into `.git`, and an
allow rule in `$TETHER_HOME/rules` (which would then run commands unsandboxed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import StartServer
from tests.support.appserver import AppServer
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

NO_TMP: dict[str, Any] = {"type": "workspaceWrite", "excludeSlashTmp": True, "excludeTmpdirEnvVar": True}
GIT_CONFIG_PATCH = (
    "*** Begin Patch\n*** Add File: .git/config\n+[core]\n+\tfsmonitor = touch pwned\n*** End Patch\n"
)
APPROVAL = "item/fileChange/requestApproval"


def _repo(workdir: Path) -> Path:
    (workdir / ".git" / "hooks").mkdir(parents=True)
    (workdir / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (workdir / "main.py").write_text("old\n")
    return workdir


async def _start_turn(
    server: AppServer, workdir: Path, approval: str, policy: dict[str, Any] | None = None
) -> int:
    result = await server.request(
        "thread/start", {"cwd": str(workdir), "sandbox": "workspace-write", "approvalPolicy": approval}
    )
    mark = server.mark()
    params: dict[str, Any] = {
        "threadId": result["thread"]["id"],
        "input": [{"type": "text", "text": "patch"}],
        "sandboxPolicy": policy or NO_TMP,
    }
    await server.request("turn/start", params)
    return mark


async def _finish_accepting_everything(server: AppServer, mark: int) -> int:
    """Play a user who accepts every approval request; returns how many were asked."""
    asked = 0
    index = mark
    while True:
        message = await server.wait_for(
            lambda m: m.get("method") in (APPROVAL, "turn/completed"), after=index
        )
        index = server.messages.index(message) + 1
        if message["method"] == "turn/completed":
            return asked
        asked += 1
        await server.respond(message["id"], {"decision": "accept"})


def _output(fake: FakeResponsesServer, call_id: str) -> str:
    for request in reversed(fake.requests):
        for item in request.body["input"]:
            if item.get("call_id") == call_id and item["type"].endswith("_output"):
                return str(item["output"])
    raise AssertionError(f"no output for {call_id}")


def _approvals(server: AppServer, mark: int) -> list[dict[str, Any]]:
    return [m for m in server.since(mark) if m.get("method") == APPROVAL]


async def test_never_refuses_a_patch_to_git_config_and_tells_the_model(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    _repo(workdir)
    fake_model.add(
        script.reply(script.custom_tool_call("apply_patch", GIT_CONFIG_PATCH, "p1")), script.text_reply("ok")
    )
    server = await start_server()
    mark = await _start_turn(server, workdir, "never")
    await server.notification("turn/completed", after=mark)
    assert not (workdir / ".git" / "config").exists()
    assert _approvals(server, mark) == []
    out = _output(fake_model, "p1")
    assert out.startswith("patch rejected:") and "protected path (.git" in out


async def test_on_request_asks_before_writing_git_config_and_a_decline_writes_nothing(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    _repo(workdir)
    fake_model.add(
        script.reply(script.custom_tool_call("apply_patch", GIT_CONFIG_PATCH, "p1")), script.text_reply("ok")
    )
    server = await start_server()
    mark = await _start_turn(server, workdir, "on-request")
    request = await server.server_request(APPROVAL, after=mark)
    assert request["params"]["itemId"] == "p1"
    assert not (workdir / ".git" / "config").exists()
    await server.respond(request["id"], {"decision": "decline"})
    await server.notification("turn/completed", after=mark)
    assert not (workdir / ".git" / "config").exists()
    assert _output(fake_model, "p1") == "patch rejected by user"


async def test_on_request_writes_git_config_once_the_user_accepts(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    _repo(workdir)
    fake_model.add(
        script.reply(script.custom_tool_call("apply_patch", GIT_CONFIG_PATCH, "p1")), script.text_reply("ok")
    )
    server = await start_server()
    mark = await _start_turn(server, workdir, "on-request")
    assert await _finish_accepting_everything(server, mark) == 1
    assert (workdir / ".git" / "config").read_text() == "[core]\n\tfsmonitor = touch pwned\n"


async def test_a_rules_file_in_the_daemon_home_is_never_written_even_when_every_prompt_is_accepted(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    rule = home / "rules" / "x.rules"
    allow_bash = '+prefix_rule(pattern=["bash"], decision="allow")'
    evil = f"*** Begin Patch\n*** Add File: {rule}\n{allow_bash}\n*** End Patch\n"
    via_link = "*** Begin Patch\n*** Add File: tether/rules/y.rules\n+x\n*** End Patch\n"
    (workdir / "tether").symlink_to(home)
    fake_model.add(
        script.reply(script.custom_tool_call("apply_patch", evil, "p1")),
        script.reply(script.custom_tool_call("apply_patch", via_link, "p2")),
        script.text_reply("ok"),
    )
    server = await start_server(home=home)
    # The default workspace-write policy makes /tmp writable, and the home lies under /tmp here.
    mark = await _start_turn(server, workdir, "on-request", {"type": "workspaceWrite"})
    assert await _finish_accepting_everything(server, mark) == 0
    assert not rule.exists() and not (home / "rules" / "y.rules").exists()
    for call in ("p1", "p2"):
        assert "never written by a patch" in _output(fake_model, call)


async def test_full_access_still_never_writes_the_daemon_home(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    evil = f"*** Begin Patch\n*** Add File: {home}/rules/x.rules\n+x\n*** End Patch\n"
    fake_model.add(script.reply(script.custom_tool_call("apply_patch", evil, "p1")), script.text_reply("ok"))
    server = await start_server(home=home)
    mark = await _start_turn(server, workdir, "never", {"type": "dangerFullAccess"})
    await server.notification("turn/completed", after=mark)
    assert not (home / "rules" / "x.rules").exists()
    assert "never written by a patch" in _output(fake_model, "p1")


async def test_a_symlink_into_git_does_not_smuggle_a_write_past_the_boundary(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    _repo(workdir)
    (workdir / "docs").symlink_to(workdir / ".git")
    through = (
        "*** Begin Patch\n*** Add File: docs/config\n+[core]\n+\tfsmonitor = touch pwned\n*** End Patch\n"
    )
    fake_model.add(
        script.reply(script.custom_tool_call("apply_patch", through, "p1")), script.text_reply("ok")
    )
    server = await start_server()
    mark = await _start_turn(server, workdir, "never")
    await server.notification("turn/completed", after=mark)
    assert not (workdir / ".git" / "config").exists()
    assert _output(fake_model, "p1").startswith("patch rejected:")


async def test_moves_into_and_out_of_git_and_deleting_git_head_are_refused_under_never(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    _repo(workdir)
    into = (
        "*** Begin Patch\n*** Update File: main.py\n*** Move to: .git/hooks/pre-commit\n@@\n-old\n+new\n"
        "*** End Patch\n"
    )
    out_of = (
        "*** Begin Patch\n*** Update File: .git/HEAD\n*** Move to: head.txt\n@@\n-ref: refs/heads/main\n+x\n"
        "*** End Patch\n"
    )
    delete = "*** Begin Patch\n*** Delete File: .git/HEAD\n*** End Patch\n"
    # The shell route (`apply_patch <<EOF` through exec_command) reaches the same boundary.
    heredoc = {"cmd": f"apply_patch <<'EOF'\n{delete}EOF\n"}
    fake_model.add(
        script.reply(script.custom_tool_call("apply_patch", into, "p1")),
        script.reply(script.custom_tool_call("apply_patch", out_of, "p2")),
        script.reply(script.custom_tool_call("apply_patch", delete, "p3")),
        script.reply(script.function_call("exec_command", heredoc, "p4")),
        script.text_reply("ok"),
    )
    server = await start_server()
    mark = await _start_turn(server, workdir, "never")
    await server.notification("turn/completed", after=mark)
    assert not (workdir / ".git" / "hooks" / "pre-commit").exists()
    assert (workdir / "main.py").read_text() == "old\n"
    assert (workdir / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"
    assert not (workdir / "head.txt").exists()
    for call in ("p1", "p2", "p3", "p4"):
        assert _output(fake_model, call).startswith("patch rejected:"), call
