"""The context window a chat thread works to: configured, else the one its server lists.

Auto-compaction starts at 90% of the window, so a response that fills 46,000 tokens compacts the
history before the next turn when the window is 50,000, and does not when it is the default.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import StartApp
from tests.integration.test_chat_provider import chat_args
from tests.support.rpcclient import RpcClient
from tether_server.core.compaction import DEFAULT_CONTEXT_WINDOW
from tether_testing import FakeChatServer, chat_reply, chat_text, chat_usage

MODEL = "qwen3:8b"
WINDOW = 50_000


@pytest.fixture
async def script() -> list[Any]:
    return [
        chat_reply(chat_text("answer one"), usage=chat_usage(46_000, 100)),
        chat_reply(chat_text("SUMMARY: user wants X"), usage=chat_usage(1_000, 50)),
        chat_reply(chat_text("after"), usage=chat_usage(2_000, 10)),
    ]


async def _two_turns(server: RpcClient, workdir: Path) -> tuple[list[str], list[int]]:
    """The item types and the reported windows of the second turn."""
    started = await server.request("thread/start", {"cwd": str(workdir), "sandbox": "read-only"})
    tid = started["thread"]["id"]
    for text in ("please do X", "continue"):
        mark = server.mark()
        await server.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": text}]})
        await server.notification("turn/completed", after=mark)
    later = server.since(mark)
    kinds = [m["params"]["item"]["type"] for m in later if m.get("method") == "item/completed"]
    windows = [
        m["params"]["tokenUsage"]["modelContextWindow"]
        for m in later
        if m.get("method") == "thread/tokenUsage/updated"
    ]
    return kinds, windows


@pytest.fixture
async def served(script: list[Any]) -> AsyncIterator[FakeChatServer]:
    # vLLM's entry for a model started with --max-model-len 50000.
    entry = {"id": MODEL, "root": MODEL, "max_model_len": WINDOW}
    async with FakeChatServer(script, models=[entry]) as fake:
        yield fake


async def test_the_window_the_server_lists_is_the_one_compaction_works_to(
    start_app: StartApp, served: FakeChatServer, workdir: Path
) -> None:
    server = await start_app(*chat_args(served))
    kinds, windows = await _two_turns(server, workdir)

    assert kinds[0] == "contextCompaction"
    assert "tools" not in served.requests[1].body  # the summary request
    assert windows and set(windows) == {WINDOW}


async def test_a_configured_window_wins_over_the_servers(
    start_app: StartApp, script: list[Any], workdir: Path
) -> None:
    async with FakeChatServer(script, models=[{"id": MODEL, "max_model_len": 1_000_000}]) as fake:
        server = await start_app(*chat_args(fake), "-c", f"model_context_window={WINDOW}")
        kinds, windows = await _two_turns(server, workdir)

    assert kinds[0] == "contextCompaction"
    assert windows and set(windows) == {WINDOW}


async def test_a_server_that_lists_no_window_leaves_the_default(
    start_app: StartApp, script: list[Any], workdir: Path
) -> None:
    # Ollama's /v1/models entries carry only an id, its kind, a date and an owner.
    async with FakeChatServer(script, models=[{"id": MODEL, "created": 1, "owned_by": "library"}]) as fake:
        server = await start_app(*chat_args(fake))
        kinds, windows = await _two_turns(server, workdir)

    assert "contextCompaction" not in kinds
    assert windows and set(windows) == {DEFAULT_CONTEXT_WINDOW}
