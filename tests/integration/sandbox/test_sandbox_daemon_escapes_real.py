"""The same escapes driven end to end: the fake model's tool calls and `command/exec` on a real
daemon over stdio, under real bwrap (issue 11, items 1, 3b, 10)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from tests.conftest import StartServer
from tests.integration.sandbox.conftest import Listeners
from tests.support.appserver import AppServer

from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

# The test dirs live under /tmp, so /tmp must not be a writable root here.
WORKSPACE_WRITE = {"type": "workspaceWrite", "excludeSlashTmp": True, "excludeTmpdirEnvVar": True}
NETWORK_ON = {**WORKSPACE_WRITE, "networkAccess": True}
SYSTEM_PYTHON = "/usr/bin/python3"
CONNECT_ALL = """
import socket, sys
for path in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path)
        print("connected", path)
    except OSError as exc:
        print("failed", path, exc.errno)
"""
PATCH = "*** Begin Patch\n*** Add File: {name}\n+hello\n*** End Patch\n"


async def _thread(server: AppServer, cwd: Path, approval: str = "never") -> str:
    params = {"cwd": str(cwd), "sandbox": "workspace-write", "approvalPolicy": approval}
    result = await server.request("thread/start", params)
    return str(result["thread"]["id"])


async def _turn(
    server: AppServer, thread_id: str, policy: dict[str, Any] = WORKSPACE_WRITE
) -> dict[str, Any]:
    mark = server.mark()
    params = {"threadId": thread_id, "input": [{"type": "text", "text": "go"}], "sandboxPolicy": policy}
    await server.request("turn/start", params)
    done = await server.notification("turn/completed", after=mark)
    return dict(done["params"]["turn"])


def _output(fake: FakeResponsesServer, call_id: str) -> str:
    for request in reversed(fake.requests):
        for item in request.body["input"]:
            if item.get("call_id") == call_id and item["type"].endswith("_output"):
                return str(item["output"])
    raise AssertionError(f"no output for {call_id}")


def _exec(call_id: str, cmd: str, **extra: Any) -> script.OutputItem:
    return script.function_call("exec_command", {"cmd": cmd, **extra}, call_id)


async def test_a_workdir_outside_the_workspace_does_not_become_writable(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    cmd = f"touch pwned; touch {workdir}/inside"
    fake_model.add(script.reply(_exec("c1", cmd, workdir=str(outside))), script.text_reply("ok"))
    server = await start_server()
    await _turn(server, await _thread(server, workdir))
    assert not (outside / "pwned").exists()
    assert (workdir / "inside").exists()  # the turn's cwd is still the writable root
    assert "Read-only file system" in _output(fake_model, "c1")


async def test_an_escalation_from_an_outside_workdir_asks_first(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    call = _exec("c1", "touch pwned", workdir=str(outside), sandbox_permissions="require_escalated")
    fake_model.add(script.reply(call), script.text_reply("ok"))
    server = await start_server()
    thread_id = await _thread(server, workdir, approval="on-request")
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "go"}]})
    request = await server.server_request("item/commandExecution/requestApproval", after=mark)
    assert request["params"]["cwd"] == str(outside)
    await server.respond(request["id"], {"decision": "decline"})
    await server.notification("turn/completed", after=mark)
    assert not (outside / "pwned").exists()


async def test_command_exec_with_cwd_slash_cannot_write_or_see_the_daemons_proc(
    start_server: StartServer, tmp_path: Path
) -> None:
    server = await start_server(env={"TETHER_T_SECRET": "daemon-only"})
    etc_probe = Path("/etc") / f"tether-sbx-{uuid.uuid4().hex}"
    script_text = (
        f"echo x > {etc_probe}; echo x > {tmp_path}/pwned; "
        f"tr '\\0' '\\n' < /proc/{server.proc.pid}/environ | grep TETHER_T_SECRET"
    )
    params = {"command": ["sh", "-c", script_text], "cwd": "/", "sandboxPolicy": WORKSPACE_WRITE}
    try:
        result = await server.request("command/exec", params)
        assert not etc_probe.exists()
    finally:
        etc_probe.unlink(missing_ok=True)
    assert not (tmp_path / "pwned").exists()
    assert "daemon-only" not in result["stdout"]
    assert "Read-only file system" in result["stderr"]


async def test_host_unix_sockets_are_out_of_reach_with_network_on(
    start_server: StartServer,
    fake_model: FakeResponsesServer,
    workdir: Path,
    tmp_path: Path,
    listeners: Listeners,
) -> None:
    home = tmp_path / "home"
    for name in ("xdg", "agent", "visible"):
        (tmp_path / name).mkdir()
    runtime_sock = listeners.listen(tmp_path / "xdg" / "bus")
    agent_sock = listeners.listen(tmp_path / "agent" / "agent.1")
    visible = listeners.listen(tmp_path / "visible" / "ok.sock")
    env = {"XDG_RUNTIME_DIR": str(tmp_path / "xdg"), "SSH_AUTH_SOCK": str(agent_sock)}
    server = await start_server("--listen", "stdio://", "--listen", "unix://", home=home, env=env)
    control = home / "app-server-control" / "app-server-control.sock"
    assert control.exists()
    (workdir / "probe.py").write_text(CONNECT_ALL)
    targets = " ".join(map(str, (control, runtime_sock, agent_sock, visible)))
    fake_model.add(
        script.reply(_exec("c1", f"{SYSTEM_PYTHON} -I -S probe.py {targets}")), script.text_reply("ok")
    )
    await _turn(server, await _thread(server, workdir), NETWORK_ON)
    lines = _output(fake_model, "c1").splitlines()
    assert [line for line in lines if line.startswith("connected")] == [f"connected {visible}"]
    assert listeners.accepted() == [str(visible)]


async def test_home_credentials_are_unreadable_unless_configured(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    user_home = tmp_path / "user"
    (user_home / ".ssh").mkdir(parents=True)
    (user_home / ".aws").mkdir()
    (user_home / ".ssh" / "id_x").write_text("PRIVATE-KEY")
    (user_home / ".aws" / "credentials").write_text("aws_secret=AKIA")
    (user_home / ".netrc").write_text("machine x password NETRC-PW")
    cmd = "cat ~/.ssh/id_x ~/.aws/credentials ~/.netrc"
    fake_model.add(script.reply(_exec("c1", cmd)), script.text_reply("ok"))
    fake_model.add(script.reply(_exec("c2", cmd)), script.text_reply("ok"))
    server = await start_server(env={"HOME": str(user_home)})
    await _turn(server, await _thread(server, workdir))
    out = _output(fake_model, "c1")
    assert "PRIVATE-KEY" not in out and "AKIA" not in out and "NETRC-PW" not in out
    configured = await start_server(
        "-c",
        'tether.sandbox_readable_credentials=[".netrc"]',
        home=tmp_path / "home2",
        env={"HOME": str(user_home)},
    )
    await _turn(configured, await _thread(configured, workdir))
    out = _output(fake_model, "c2")
    assert "NETRC-PW" in out and "PRIVATE-KEY" not in out and "AKIA" not in out


async def test_a_git_config_cannot_be_planted_in_a_workspace_without_git(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    cmd = "mkdir -p .git && printf '[core]\\n\\tfsmonitor = touch /tmp/owned\\n' > .git/config; touch made"
    fake_model.add(script.reply(_exec("c1", cmd)), script.text_reply("ok"))
    server = await start_server()
    await _turn(server, await _thread(server, workdir))
    assert (workdir / "made").exists()
    assert not (workdir / ".git").exists()  # neither planted nor a leftover stub
    assert "Read-only file system" in _output(fake_model, "c1")


async def test_cd_dir_and_apply_patch_applies_in_that_dir(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    (workdir / "sub").mkdir()
    (workdir / "other").mkdir()
    heredoc = "apply_patch <<'EOF'\n{patch}EOF\n"
    fake_model.add(
        script.reply(_exec("c1", "cd sub && " + heredoc.format(patch=PATCH.format(name="a.txt")))),
        script.reply(_exec("c2", heredoc.format(patch=PATCH.format(name="b.txt")), workdir="other")),
        script.text_reply("ok"),
    )
    server = await start_server()
    turn = await _turn(server, await _thread(server, workdir))
    assert turn["status"] == "completed"
    assert (workdir / "sub" / "a.txt").read_text() == "hello\n"
    assert (workdir / "other" / "b.txt").read_text() == "hello\n"
    assert not (workdir / "a.txt").exists() and not (workdir / "b.txt").exists()


async def test_a_patch_into_a_hidden_credential_store_is_refused_even_inside_the_workspace(
    start_server: StartServer, fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    user_home = tmp_path / "user"
    (user_home / ".ssh").mkdir(parents=True)
    patch = "*** Begin Patch\n*** Add File: .ssh/authorized_keys\n+ssh-ed25519 AAAA attacker\n*** End Patch\n"
    fake_model.add(script.reply(script.custom_tool_call("apply_patch", patch, "p1")), script.text_reply("ok"))
    server = await start_server(env={"HOME": str(user_home)})
    await _turn(server, await _thread(server, user_home))  # the workspace is the home itself
    assert not (user_home / ".ssh" / "authorized_keys").exists()
    assert "hidden from sandboxed commands" in _output(fake_model, "p1")
