"""The official Python SDK (`openai-codex`) driving Tether whose model speaks Chat Completions.

A local model server (Ollama, vLLM, llama.cpp…) behind `wire_api = "chat"` is invisible to the
client: the SDK gets the same stream of items it gets from a Responses model.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.e2e.test_official_sdk import _unreadable, _wire
from tests.integration.test_chat_provider import chat_args
from tether_testing import FakeChatServer, chat_reply, chat_text, chat_text_reply, chat_tool_call

pytest.importorskip("openai_codex")

from openai_codex import AsyncCodex, CodexConfig, Sandbox

pytestmark = [
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]


async def test_the_sdk_runs_a_turn_with_a_command_against_a_chat_model(tmp_path: Path) -> None:
    workdir = tmp_path / "project"
    workdir.mkdir()
    async with FakeChatServer() as chat:
        chat.add(
            chat_reply(chat_tool_call("exec_command", {"cmd": "echo from-chat > out.txt"}, "c1")),
            chat_reply(chat_text("Wrote out.txt.", deltas=3)),
            chat_text_reply("Second answer."),
        )
        argv = (sys.executable, "-m", "tether_server", "app-server", *chat_args(chat))
        config = CodexConfig(launch_args_override=argv, env={"TETHER_HOME": str(tmp_path / "home")})
        async with AsyncCodex(config) as codex:
            thread = await codex.thread_start(cwd=str(workdir), sandbox=Sandbox.full_access)
            turn = await thread.turn("write out.txt")
            events = [event async for event in turn.stream()]
            result = await thread.run("again")
    assert _unreadable(events) == []
    commands = [_wire(e)["item"] for e in events if e.method == "item/completed"]
    assert [i["type"] for i in commands if i["type"] == "commandExecution"] == ["commandExecution"]
    assert (workdir / "out.txt").read_text() == "from-chat\n"
    deltas = [_wire(e)["delta"] for e in events if e.method == "item/agentMessage/delta"]
    assert "".join(deltas) == "Wrote out.txt."
    assert events[-1].method == "turn/completed"
    assert result.final_response == "Second answer."
    # The chat server got the command's output back as a `tool` message.
    assert any(m.get("role") == "tool" for m in chat.requests[1].body["messages"])
