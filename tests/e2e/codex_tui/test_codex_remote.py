"""The real Codex TUI (`codex --remote`, codex-cli 0.169.0) attached to `tether app-server`.

The TUI runs in a tmux pane against a real daemon and the fake model; the assertions read the
pane's screen, the files the daemon writes, and (over ws) every frame the TUI exchanged, relayed
through a logging WebSocket relay.
"""

from __future__ import annotations

import sqlite3
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from websockets.asyncio.server import serve

from tests.e2e.codex_tui.relay import Relay
from tests.e2e.codex_tui.screen import Screen, codex_binary
from tests.support import schema
from tests.support.appserver import mock_provider_args
from tests.support.wsclient import SocketServer
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

ANSWER = "Hello from the fake model."
COMPOSER = "Ask Codex to do anything"
TOKEN_VAR = "TETHER_WS_TOKEN"
REPLY = script.text_reply(ANSWER, usage=script.usage(1200, 34))
PROMPT = "\u203a"  # the composer's and the transcript's prompt mark
SEEDED = """# my settings, kept by the TUI's writes
model_reasoning_effort = "medium"  # tuned by hand

[tui]
# a table the TUI never touches
notifications = true
"""


def _workdir(tmp_path: Path) -> Path:
    work = tmp_path / "project"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / "README.md").write_text("hello\n")
    return work


@asynccontextmanager
async def _daemon(tmp_path: Path, fake: FakeResponsesServer, listen: str) -> AsyncIterator[SocketServer]:
    home = tmp_path / "tether-home"
    home.mkdir()
    (home / "config.toml").write_text(SEEDED)
    args = ["--listen", listen, *mock_provider_args(fake.base_url, model="gpt-5.5")]
    server = await SocketServer.start(home, args)
    try:
        yield server
    finally:
        await server.stop()


@asynccontextmanager
async def _relay(upstream: str) -> AsyncIterator[tuple[Relay, str]]:
    relay = Relay(upstream)
    async with serve(relay.handle, "127.0.0.1", 0, max_size=None) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        yield relay, f"ws://127.0.0.1:{port}"


@asynccontextmanager
async def _tui(
    remote: str, work: Path, tmp_path: Path, token: str | None = None, *, cd: bool = False
) -> AsyncIterator[Screen]:
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir(exist_ok=True)
    # model/list offers gpt-5.5 an upgrade, as Codex's catalogue does: the TUI asks once whether to
    # switch, then notes the answer here. These flows run on gpt-5.5, as a user who said no.
    notice = codex_home / "config.toml"
    if not notice.exists():
        notice.write_text('[notice.model_migrations]\n"gpt-5.5" = "gpt-6-sol"\n')
    env = {"CODEX_HOME": str(codex_home), "TERM": "xterm-256color", "HOME": str(tmp_path)}
    argv = [str(codex_binary()), "--remote", remote]
    if cd:
        # A remote TUI sends a working directory (and asks to trust it) only when given one.
        argv += ["-C", str(work)]
    if token is not None:
        # The daemon's generated ws token, sent by the TUI as a bearer token (through the relay).
        env[TOKEN_VAR] = token
        argv += ["--remote-auth-token-env", TOKEN_VAR]
    screen = Screen.start(argv, cwd=work, env=env, socket=tmp_path / "tmux.sock")
    try:
        yield screen
    finally:
        screen.close()


async def _submit(screen: Screen, text: str) -> None:
    screen.type(text)
    await screen.wait_for(f"{PROMPT} {text}")
    screen.keys("Enter")


async def _answered(relay: Relay, method: str, within_s: float = 30.0) -> None:
    """Wait until the TUI has sent `method` through the relay and had its answer."""

    def answered() -> bool:
        return any(m == method and answer is not None for m, _, answer in relay.exchanges())

    if not await relay.until(answered, within_s):
        raise AssertionError(f"the TUI never got an answer to {method}")


async def _first_turn_model_new_resume(screen: Screen, home: Path, relay: Relay | None = None) -> None:
    await screen.wait_for(COMPOSER)
    await _submit(screen, "Say hello")
    await screen.wait_for(ANSWER)

    # The `@` picker searches earlier threads (thread/search) as well as files.
    screen.type("@Say")
    await screen.wait_for("Files, directories, plugins, skills and tasks")
    if relay is not None:
        await _answered(relay, "thread/search")
    screen.keys("Escape")
    await screen.wait_gone("Files, directories, plugins, skills and tasks")
    screen.keys("BSpace", "BSpace", "BSpace", "BSpace")
    await screen.wait_for(COMPOSER)

    await _submit(screen, "/status")
    status = await screen.wait_for("Token usage:")
    print(status)
    assert "Model provider:      mock" in status
    assert "Collaboration mode:  Default" in status

    await _submit(screen, "/model")
    await screen.wait_for("Select Model and Effort")
    screen.keys("Enter")
    await screen.wait_for("Select Reasoning Level")
    await screen.wait_for("3. High")
    screen.keys("3")
    await screen.wait_for("Model changed to gpt-5.5 high")
    written = (home / "config.toml").read_text()
    assert 'model_reasoning_effort = "high"' in written
    assert "# my settings, kept by the TUI's writes" in written
    assert "# a table the TUI never touches" in written and "notifications = true" in written

    await _submit(screen, "/new")
    await screen.wait_gone(ANSWER)
    await screen.wait_for(COMPOSER)

    await _submit(screen, "/resume")
    await screen.wait_for("Resume a previous session")
    await screen.wait_for("Say hello")
    screen.keys("Enter")
    shown = await screen.wait_for(ANSWER)
    assert f"{PROMPT} Say hello" in shown

    with sqlite3.connect(home / "tether.sqlite") as db:
        previews = [row[0] for row in db.execute("SELECT preview FROM threads")]
    assert "Say hello" in previews


def assert_all_answered(exchanges: list[tuple[str, dict[str, Any], dict[str, Any] | None]]) -> None:
    """Every request got an answer, none "Method not found", each one the reference schema accepts."""
    unanswered = [method for method, _, answer in exchanges if answer is None]
    assert not unanswered, f"requests the TUI never got an answer to: {unanswered}"
    missing = [m for m, _, a in exchanges if a is not None and a.get("error", {}).get("code") == -32601]
    assert not missing, f"answered Method not found: {missing}"
    broken = [
        f"{method}: {error}"
        for method, _, answer in exchanges
        if answer is not None and "result" in answer
        for error in schema.response_errors(method, answer["result"])
    ]
    assert not broken, "answers the reference schema rejects:\n" + "\n".join(broken)


async def test_codex_tui_over_websocket_through_a_logging_relay(tmp_path: Path) -> None:
    work = _workdir(tmp_path)
    async with (
        FakeResponsesServer([REPLY], loop_script=True) as fake,
        _daemon(tmp_path, fake, "ws://127.0.0.1:0") as server,
        _relay(server.ws_url) as (relay, url),
        _tui(url, work, tmp_path, server.token()) as screen,
    ):
        await _first_turn_model_new_resume(screen, server.home, relay)
    exchanges = relay.exchanges()
    methods = {method for method, _, _ in exchanges}
    # The flows above exercise these (observed against `codex app-server` with the same relay).
    assert {
        "initialize",
        "account/read",
        "model/list",
        "hooks/list",
        "account/bedrock/checkGovCloudRequirements",
        "config/read",
        "configRequirements/read",
        "collaborationMode/list",
        "thread/start",
        "thread/list",
        "thread/loaded/list",
        "skills/list",
        "plugin/installed",
        "turn/start",
        "thread/unsubscribe",
        "thread/settings/update",
        "config/batchWrite",
        "thread/read",
        "thread/resume",
        "thread/turns/list",
        "thread/items/list",
        "thread/goal/get",
        "thread/backgroundTerminals/list",
        "thread/readState/update",
        "thread/search",
    } <= methods
    assert_all_answered(exchanges)


async def test_codex_tui_over_the_unix_socket(tmp_path: Path) -> None:
    work = _workdir(tmp_path)
    socket_path = tmp_path / "tether.sock"
    async with (
        FakeResponsesServer([REPLY], loop_script=True) as fake,
        _daemon(tmp_path, fake, f"unix://{socket_path}") as server,
        _tui(f"unix://{socket_path}", work, tmp_path) as screen,
    ):
        await _first_turn_model_new_resume(screen, server.home)
