"""`tether exec --remote`: the turn runs on a running daemon, so CI and a desktop client share threads."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.integration.transports.conftest import StartSocketServer
from tests.support.exec_run import EXEC_WAIT_S, git_repo, run_exec, start_exec
from tests.support.exec_shapes import validate_stream
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


async def test_a_thread_started_over_websocket_is_resumed_over_the_control_socket(
    fake_model: FakeResponsesServer, socket_server: StartSocketServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    home = tmp_path / "home"
    token_file = tmp_path / "token"
    token_file.write_text("exec-remote-token\n")
    server = await socket_server(
        "--listen",
        "unix://",
        "--listen",
        "ws://127.0.0.1:0",
        "--ws-auth",
        "capability-token",
        "--ws-token-file",
        str(token_file),
        home=home,
    )
    fake_model.add(script.text_reply("Over the socket."), script.text_reply("Over the control socket."))
    env = {"EXEC_TOKEN": "exec-remote-token"}
    # The exec side has its own TETHER_HOME, except for `unix://`, which names the daemon's.
    remote_ws = ("--remote", server.ws_url, "--remote-auth-token-env", "EXEC_TOKEN")
    first = await run_exec(
        fake_model.base_url, tmp_path / "client-home", "--json", *remote_ws, "--cd", str(repo), "hi", env=env
    )
    assert first.code == 0, first.stderr
    validate_stream(first.events)
    thread_id = first.events[0]["thread_id"]
    assert first.events[-2]["item"]["text"] == "Over the socket."
    second = await run_exec(
        fake_model.base_url, home, "--remote", "unix://", "--cd", str(repo), "resume", thread_id, "again"
    )
    assert second.code == 0, second.stderr
    assert second.stdout == "Over the control socket.\n"
    history = [i for i in fake_model.requests[-1].body["input"] if i.get("role") in ("user", "assistant")]
    assert any("Over the socket." in str(item) for item in history)


async def test_a_missing_token_variable_and_a_bad_url_are_clear_errors(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    home = tmp_path / "home"
    unset = await run_exec(
        fake_model.base_url,
        home,
        "--remote",
        "ws://127.0.0.1:9",
        "--remote-auth-token-env",
        "NOPE_UNSET",
        "--cd",
        str(repo),
        "x",
    )
    assert unset.code == 1 and "NOPE_UNSET" in unset.stderr
    bad = await run_exec(fake_model.base_url, home, "--remote", "http://x", "--cd", str(repo), "x")
    assert bad.code == 1 and "--remote http://x" in bad.stderr


async def test_without_a_token_variable_exec_uses_the_daemons_generated_token_from_codex_home(
    fake_model: FakeResponsesServer, socket_server: StartSocketServer, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path / "repo")
    home = tmp_path / "home"
    server = await socket_server("--listen", "ws://127.0.0.1:0", home=home)
    assert (home / "ws-token").is_file()
    fake_model.add(script.text_reply("Token from the file."))
    # exec's home is the daemon's, named the Codex way: CODEX_HOME, with TETHER_HOME unset.
    proc = await start_exec(
        fake_model.base_url,
        tmp_path / "unused",
        "--remote",
        server.ws_url,
        "--cd",
        str(repo),
        "x",
        env={"CODEX_HOME": str(home), "TETHER_HOME": ""},
    )
    async with asyncio.timeout(EXEC_WAIT_S):
        out, err = await proc.communicate(b"")
    assert proc.returncode == 0, err.decode()
    assert out.decode() == "Token from the file.\n"
