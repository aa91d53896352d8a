"""The model's `shell` argument, driven end to end under real bwrap (issue 24, item 1).

`exec_command` runs `[shell, -c, cmd]`, and the shell is the model's to name. An allow rule for
`git status` once judged only `cmd`, so a script the model wrote into the workspace, named as
the shell, ran outside the sandbox with no prompt; and an accept-for-session for `git status`
also covered it under any other shell.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import StartApp
from tests.support.rpcclient import RpcClient

from tether_server.tools.exec import default_shell
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

# The test dirs live under /tmp, so /tmp must not be a writable root here.
WORKSPACE_WRITE = {"type": "workspaceWrite", "excludeSlashTmp": True, "excludeTmpdirEnvVar": True}
APPROVAL = "item/commandExecution/requestApproval"


def _rules(home: Path, text: str) -> None:
    (home / "rules").mkdir(parents=True, exist_ok=True)
    (home / "rules" / "team.rules").write_text(text)


def _exec(call_id: str, cmd: str, **extra: Any) -> script.OutputItem:
    return script.function_call("exec_command", {"cmd": cmd, **extra}, call_id)


def _output(fake: FakeResponsesServer, call_id: str) -> str:
    for request in reversed(fake.requests):
        for item in request.body["input"]:
            if item.get("call_id") == call_id and item["type"].endswith("_output"):
                return str(item["output"])
    raise AssertionError(f"no output for {call_id}")


async def _thread(server: RpcClient, workdir: Path) -> str:
    params = {"cwd": str(workdir), "sandbox": "workspace-write", "approvalPolicy": "on-request"}
    return str((await server.request("thread/start", params))["thread"]["id"])


async def _turn(server: RpcClient, thread_id: str) -> int:
    mark = server.mark()
    params = {
        "threadId": thread_id,
        "input": [{"type": "text", "text": "go"}],
        "sandboxPolicy": WORKSPACE_WRITE,
    }
    await server.request("turn/start", params)
    return mark


def _another_shell() -> str:
    """A system shell that is not the default one (dash when the default is bash, and so on)."""
    default = os.path.realpath(default_shell())
    candidates = ("/bin/sh", "/bin/dash", "/bin/bash", "/usr/bin/zsh")
    return next(s for s in candidates if os.path.exists(s) and os.path.realpath(s) != default)


@pytest.mark.parametrize("name", ["evil.sh", "bash"])
async def test_a_shell_the_model_wrote_does_not_run_outside_the_sandbox(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path, name: str
) -> None:
    home = tmp_path / "home"
    _rules(home, 'prefix_rule(pattern=["git", "status"], decision="allow")\n')
    marker = tmp_path / "pwned"
    write = f"printf '#!/bin/sh\\ntouch {marker}\\n' > {name} && chmod +x {name}"
    # `./evil.sh` is no shell at all; `bash` is a shell's name on a script in the workspace.
    shell = "./evil.sh" if name == "evil.sh" else str(workdir / "bash")
    fake_model.add(
        script.reply(_exec("c1", write)),
        script.reply(_exec("c2", "git status", shell=shell)),
        script.text_reply("done"),
    )
    server = await start_app(home=home)
    mark = await _turn(server, await _thread(server, workdir))
    await server.notification("turn/completed", after=mark)
    assert os.access(workdir / name, os.X_OK), _output(fake_model, "c1")  # written in the sandbox
    assert not marker.exists()
    out = _output(fake_model, "c2")
    assert out.startswith(f"exec_command failed for `git status`: shell `{shell}`")
    assert [m for m in server.since(mark) if m.get("method") == APPROVAL] == []


async def test_a_system_shell_the_model_names_still_runs_the_command(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(_exec("c1", "echo $0 > which.txt", shell="sh")),
        script.text_reply("done"),
    )
    server = await start_app()
    mark = await _turn(server, await _thread(server, workdir))
    await server.notification("turn/completed", after=mark)
    assert (workdir / "which.txt").read_text().strip() == os.path.realpath("/bin/sh")


async def test_accept_for_session_under_the_default_shell_does_not_cover_another_shell(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    _rules(home, 'prefix_rule(pattern=["git", "status"], decision="prompt")\n')
    other = _another_shell()
    fake_model.add(script.reply(_exec("c1", "git status")), script.text_reply("one"))
    fake_model.add(script.reply(_exec("c2", "git status", shell=other)), script.text_reply("two"))
    fake_model.add(script.reply(_exec("c3", "git status")), script.text_reply("three"))
    server = await start_app(home=home)
    thread_id = await _thread(server, workdir)

    mark = await _turn(server, thread_id)
    request = await server.server_request(APPROVAL, after=mark)
    await server.respond(request["id"], {"decision": "acceptForSession"})
    await server.notification("turn/completed", after=mark)

    mark = await _turn(server, thread_id)
    first = await server.wait_for(lambda m: m.get("method") in (APPROVAL, "turn/completed"), after=mark)
    assert first["method"] == APPROVAL, "the session's yes was taken for another shell"
    assert first["params"]["command"].startswith(f"{os.path.realpath(other)} -c ")
    await server.respond(first["id"], {"decision": "decline"})
    await server.notification("turn/completed", after=mark)
    assert _output(fake_model, "c2") == "exec command rejected by user"

    # The yes still holds for the command it was given to.
    mark = await _turn(server, thread_id)
    await server.notification("turn/completed", after=mark)
    assert [m for m in server.since(mark) if m.get("method") == APPROVAL] == []
