"""`disabledPluginIds` as Codex 0.169.0 keeps it (observed on the binary with the fake model): a
turn's list is saved with the thread and reported by `thread/resume` (start reports `[]`); an
omitted list keeps it, `[]` clears it. As in Codex it does not filter what plugins contribute."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tests.support.rpcclient import RpcClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

IDS = ["demo@test-market", "x"]


async def _turn(server: RpcClient, fake: FakeResponsesServer, thread: str, **extra: Any) -> None:
    fake.add(script.text_reply("ok"))
    mark = server.mark()
    params = {"threadId": thread, "input": [{"type": "text", "text": "hi"}], **extra}
    await server.request("turn/start", params)
    await server.notification("turn/completed", after=mark, within_s=60)


async def test_a_turns_disabled_plugin_ids_are_kept_with_the_thread(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    server = await start_app()
    started = await server.request("thread/start", {"cwd": str(workdir)})
    assert started["disabledPluginIds"] == []
    thread = started["thread"]["id"]

    await _turn(server, fake_model, thread, disabledPluginIds=IDS)
    assert (await server.request("thread/resume", {"threadId": thread}))["disabledPluginIds"] == IDS
    await _turn(server, fake_model, thread)
    assert (await server.request("thread/resume", {"threadId": thread}))["disabledPluginIds"] == IDS
    await server.close()

    # Kept across a restart; `[]` clears it.
    server = await start_app(home=tmp_path / "home")
    assert (await server.request("thread/resume", {"threadId": thread}))["disabledPluginIds"] == IDS
    await _turn(server, fake_model, thread, disabledPluginIds=[])
    assert (await server.request("thread/resume", {"threadId": thread}))["disabledPluginIds"] == []
