"""`reasoning_effort` on a chat request: the thread's effort when it has one, else left out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tests.integration.test_chat_provider import chat_args
from tests.support.rpcclient import RpcClient
from tether_testing import FakeChatServer, chat_text_reply


async def _turn(server: RpcClient, workdir: Path, **turn_params: Any) -> None:
    started = await server.request("thread/start", {"cwd": str(workdir), "sandbox": "read-only"})
    params = {"threadId": started["thread"]["id"], "input": [{"type": "text", "text": "hi"}], **turn_params}
    mark = server.mark()
    await server.request("turn/start", params)
    await server.notification("turn/completed", after=mark)


async def test_the_configured_effort_is_sent(start_app: StartApp, workdir: Path) -> None:
    async with FakeChatServer([chat_text_reply("ok")]) as fake:
        server = await start_app(*chat_args(fake), "-c", 'model_reasoning_effort="high"')
        await _turn(server, workdir)

    assert fake.requests[0].body["reasoning_effort"] == "high"


async def test_an_effort_chosen_for_the_turn_is_sent_in_the_servers_names(
    start_app: StartApp, workdir: Path
) -> None:
    async with FakeChatServer([chat_text_reply("ok"), chat_text_reply("ok")]) as fake:
        server = await start_app(*chat_args(fake))
        await _turn(server, workdir, effort="low")
        await _turn(server, workdir, effort="xhigh")

    assert [r.body["reasoning_effort"] for r in fake.requests] == ["low", "high"]


async def test_without_an_effort_none_is_sent_even_with_a_summary_asked_for(
    start_app: StartApp, workdir: Path
) -> None:
    async with FakeChatServer([chat_text_reply("ok")]) as fake:
        server = await start_app(*chat_args(fake), "-c", 'model_reasoning_summary="detailed"')
        await _turn(server, workdir)

    assert "reasoning_effort" not in fake.requests[0].body
