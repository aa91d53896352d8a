"""The system and project config layers change what a thread runs with, in Codex's precedence.

Codex 0.169.0 (`config/read` with `cwd`, see test_config_layers.py): session `-c` flags > the
`.codex/config.toml` of a trusted project > the user's config.toml > the system config.toml; an
untrusted project's file is no layer. A thread started in a folder runs with what `config/read`
reports for that folder: the model the fake model is asked for, the approval policy and the
reasoning effort `thread/start` answers.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from tests.support.appserver import mock_provider_args
from tests.support.inprocess import InProcessServer
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

Start = Callable[[Path], Awaitable[InProcessServer]]


@pytest.fixture
async def start_layered(
    tmp_path: Path, fake_model: FakeResponsesServer, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Start]:
    """`start_app` without its `-c model=...` flag (a flag would beat every layer under test)."""
    servers: list[InProcessServer] = []

    async def start(home: Path) -> InProcessServer:
        monkeypatch.setenv("TETHER_HOME", str(home))
        monkeypatch.chdir(home)
        args = mock_provider_args(fake_model.base_url)
        at = args.index('model="gpt-test"')
        del args[at - 1 : at + 1]
        server = await InProcessServer.start(home, [*args, "-c", 'approval_policy="on-request"'])
        servers.append(server)
        await server.initialize()
        return server

    yield start
    for server in servers:
        await server.close(check=False)
    for server in servers:
        server.check()


def _folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    home, system, trusted, untrusted = (tmp_path / n for n in ("home", "system", "trusted", "untrusted"))
    for folder in (
        home,
        system,
        trusted / ".git",
        trusted / ".codex",
        untrusted / ".git",
        untrusted / ".codex",
    ):
        folder.mkdir(parents=True)
    (system / "config.toml").write_text('model = "system-model"\nmodel_reasoning_effort = "high"\n')
    (home / "config.toml").write_text(
        'model_reasoning_effort = "low"\n'
        f'[projects."{trusted}"]\ntrust_level = "trusted"\n'
        f'[projects."{untrusted}"]\ntrust_level = "untrusted"\n'
    )
    (trusted / ".codex" / "config.toml").write_text('model = "project-model"\napproval_policy = "never"\n')
    (untrusted / ".codex" / "config.toml").write_text('model = "untrusted-model"\n')
    monkeypatch.setenv("TETHER_SYSTEM_CONFIG_DIR", str(system))
    return home, trusted, untrusted


async def test_a_thread_runs_with_its_projects_layers(
    start_layered: Start, fake_model: FakeResponsesServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, trusted, untrusted = _folders(tmp_path, monkeypatch)
    fake_model.add(script.text_reply("one"), script.text_reply("two"))
    server = await start_layered(home)

    in_project = await server.request("thread/start", {"cwd": str(trusted)})
    elsewhere = await server.request("thread/start", {"cwd": str(untrusted)})
    read = await server.request("config/read", {"cwd": str(trusted)})
    for started in (in_project, elsewhere):
        mark = server.mark()
        text = [{"type": "text", "text": "hi"}]
        await server.request("turn/start", {"threadId": started["thread"]["id"], "input": text})
        await server.notification("turn/completed", after=mark)

    # The project's model wins over the system's; the flag's approval policy over the project's.
    assert (in_project["model"], in_project["approvalPolicy"]) == ("project-model", "on-request")
    # The untrusted project's file is ignored: the system's model, as nothing above sets one.
    assert (elsewhere["model"], elsewhere["approvalPolicy"]) == ("system-model", "on-request")
    # The user's effort wins over the system's.
    assert in_project["reasoningEffort"] == elsewhere["reasoningEffort"] == "low"
    assert [r.body["model"] for r in fake_model.requests] == ["project-model", "system-model"]
    assert (read["config"]["model"], read["origins"]["model"]["name"]["type"]) == ("project-model", "project")


async def test_a_project_or_system_file_edited_between_two_thread_starts_applies_to_the_second(
    start_layered: Start, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, trusted, _ = _folders(tmp_path, monkeypatch)
    server = await start_layered(home)
    first = await server.request("thread/start", {"cwd": str(trusted)})
    # The same length as before, so only the file's time tells the edits apart.
    (trusted / ".codex" / "config.toml").write_text('model = "project-mode2"\napproval_policy = "never"\n')
    system_file = tmp_path / "system" / "config.toml"
    system_file.write_text('model = "system-model"\nmodel_reasoning_effort = "xhig"\n')
    second = await server.request("thread/start", {"cwd": str(trusted)})
    (trusted / ".codex" / "config.toml").unlink()
    third = await server.request("thread/start", {"cwd": str(trusted)})

    assert [s["model"] for s in (first, second, third)] == ["project-model", "project-mode2", "system-model"]
    read = await server.request("config/read", {"cwd": str(trusted), "includeLayers": True})
    system = [layer for layer in read["layers"] if layer["name"]["type"] == "system"]
    assert system[0]["config"]["model_reasoning_effort"] == "xhig"
