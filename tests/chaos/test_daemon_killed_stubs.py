"""The stubs and placeholders of a daemon SIGKILLed while a sandboxed command runs.

While a command runs, missing protected paths (`.git`, `.codex` of the cwd) have an empty stub
directory as bwrap's mount target and missing shell startup files of a `$HOME` in the workspace a
placeholder; a killed daemon never removes them. The next daemon on the same home does, unless
someone filled the stub, rewrote a placeholder or put a symlink in its place meanwhile. A real
daemon, real bwrap, SIGKILL.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.conftest import StartServer
from tests.integration.sandbox.test_sandbox_daemon_escapes_real import WORKSPACE_WRITE, _exec, _thread, _turn
from tests.support.appserver import WAIT_S
from tether_server.sandbox.startup import STARTUP_FILES, placeholder_text
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


async def test_a_restarted_daemon_removes_the_stubs_a_killed_one_left_but_not_what_the_user_changed(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    user_home = workdir / "user"
    user_home.mkdir()
    tether_home = tmp_path / "tether-home"
    env = {"HOME": str(user_home)}
    fake_model.add(script.reply(_exec("hold", "echo READY; exec sleep 60", yield_time_ms=30_000)))
    server = await start_server(home=tether_home, env=env)
    thread_id = await _thread(server, workdir)
    mark = server.mark()
    params = {
        "threadId": thread_id,
        "input": [{"type": "text", "text": "go"}],
        "sandboxPolicy": WORKSPACE_WRITE,
    }
    await server.request("turn/start", params)
    await server.notification(
        "item/commandExecution/outputDelta", after=mark, where=lambda p: "READY" in p["delta"]
    )

    server.kill()
    async with asyncio.timeout(WAIT_S):
        await server.proc.wait()
    stubs = [workdir / ".git", workdir / ".codex"]  # a missing .agents is not protected in the cwd
    assert all(stub.is_dir() and not any(stub.iterdir()) for stub in stubs), "the killed daemon left them"
    for name in STARTUP_FILES:
        assert (user_home / name).read_bytes() == placeholder_text(name)
    # Meanwhile the user starts a repository and writes a .bashrc of their own.
    (workdir / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (user_home / ".bashrc").write_text("export MINE=1\n")
    # And links .zshrc to a file elsewhere that happens to hold the placeholder's very text.
    elsewhere = tmp_path / "zshrc"
    elsewhere.write_bytes(placeholder_text(".zshrc"))
    (user_home / ".zshrc").unlink()
    (user_home / ".zshrc").symlink_to(elsewhere)

    restarted = await start_server(home=tether_home, env=env)
    # Answered once the daemon is up (initialize is answered before), so after its start-up sweep.
    await restarted.request("thread/list", {})
    assert sorted(p.name for p in workdir.iterdir()) == [".git", "user"]
    assert (workdir / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"
    assert sorted(p.name for p in user_home.iterdir()) == [".bashrc", ".zshrc"]
    assert (user_home / ".bashrc").read_text() == "export MINE=1\n"
    assert (user_home / ".zshrc").readlink() == elsewhere
    assert elsewhere.read_bytes() == placeholder_text(".zshrc")
    assert list((tether_home / "sandbox-stubs").iterdir()) == []

    # A command that ends normally takes its stubs and their journal entry with it.
    fake_model.add(script.reply(_exec("quick", "true")), script.text_reply("ok"))
    await _turn(restarted, await _thread(restarted, workdir), WORKSPACE_WRITE)
    assert sorted(p.name for p in workdir.iterdir()) == [".git", "user"]
    assert sorted(p.name for p in user_home.iterdir()) == [".bashrc", ".zshrc"]
    assert list((tether_home / "sandbox-stubs").iterdir()) == []
    await restarted.close()
