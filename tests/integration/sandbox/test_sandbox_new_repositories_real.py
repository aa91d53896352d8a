"""A `.git`/`.codex` a sandboxed command creates under a writable root is reported to the user
(issue 24 item 13g). A real daemon over stdio, real bwrap, real git, the fake model."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import StartServer
from tests.integration.sandbox.test_sandbox_daemon_escapes_real import WORKSPACE_WRITE, _exec, _thread, _turn

from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


async def test_a_repository_a_command_creates_is_reported_once(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    (workdir / "vendor" / "old").mkdir(parents=True)
    (workdir / "vendor" / "old" / ".git").mkdir()
    fake_model.add(
        script.reply(_exec("create", "git init -q sub && mkdir -p lib/.codex && echo made")),
        script.reply(_exec("quiet", "echo nothing new; ls vendor/old/.git")),
        script.text_reply("ok"),
    )
    server = await start_server()
    thread_id = await _thread(server, workdir)
    mark = server.mark()
    await _turn(server, thread_id, WORKSPACE_WRITE)

    warnings = [m["params"] for m in server.since(mark) if m.get("method") == "warning"]
    assert len(warnings) == 1, warnings
    assert warnings[0]["threadId"] == thread_id
    message = warnings[0]["message"]
    assert str(workdir.resolve() / "sub" / ".git") in message
    assert str(workdir.resolve() / "lib" / ".codex") in message
    assert "vendor" not in message, "a repository that was already there is not news"
    assert "git config --list --show-origin" in message
