"""Turns on a `wire_api = "chat"` provider, against the scripted Chat Completions fake on loopback.

The same behaviours the Responses tests pin, where they apply: a command, a patch, parallel calls,
an interrupt mid-stream, a 429 retried after its Retry-After, a resume in a new daemon.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import StartApp
from tests.support.rpcclient import RpcClient, methods
from tether_testing import (
    FakeChatServer,
    chat_reasoning,
    chat_reply,
    chat_text,
    chat_text_reply,
    chat_tool_call,
    chat_usage,
    gated,
    http_error,
)

PATCH = "*** Begin Patch\n*** Add File: notes/hello.txt\n+hello\n*** End Patch\n"


@pytest.fixture
async def chat_model() -> AsyncIterator[FakeChatServer]:
    async with FakeChatServer() as fake:
        yield fake


def chat_args(fake: FakeChatServer, *, retries: int = 0) -> list[str]:
    """`-c` overrides that make the thread's provider a chat server (after the Responses fake's)."""
    return [
        "-c",
        'model="qwen3:8b"',
        "-c",
        'model_provider="local"',
        "-c",
        f'model_providers.local.base_url="{fake.base_url}"',
        "-c",
        'model_providers.local.wire_api="chat"',
        "-c",
        "model_providers.local.request_max_retries=0",
        "-c",
        f"model_providers.local.stream_max_retries={retries}",
    ]


async def _thread(server: RpcClient, workdir: Path) -> str:
    result = await server.request("thread/start", {"cwd": str(workdir), "sandbox": "danger-full-access"})
    return str(result["thread"]["id"])


async def _turn(server: RpcClient, thread_id: str, text: str) -> tuple[int, dict[str, Any]]:
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": text}]})
    done = await server.notification("turn/completed", after=mark)
    return mark, done["params"]["turn"]


def _completed(server: RpcClient, mark: int) -> list[dict[str, Any]]:
    return [m["params"]["item"] for m in server.since(mark) if m.get("method") == "item/completed"]


def _tool_messages(fake: FakeChatServer, index: int = -1) -> dict[str, str]:
    messages = fake.requests[index].body["messages"]
    return {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}


async def test_a_command_then_a_patch_then_an_answer(
    start_app: StartApp, chat_model: FakeChatServer, workdir: Path
) -> None:
    chat_model.add(
        chat_reply(
            chat_reasoning("I should look first."), chat_tool_call("exec_command", {"cmd": "echo hi"}, "c1")
        ),
        chat_reply(chat_tool_call("apply_patch", {"input": PATCH}, "c2")),
        chat_reply(chat_text("Added notes/hello.txt."), usage=chat_usage(900, 7)),
    )
    server = await start_app(*chat_args(chat_model))
    mark, turn = await _turn(server, await _thread(server, workdir), "add a note")

    assert turn["status"] == "completed"
    assert (workdir / "notes/hello.txt").read_text() == "hello\n"
    kinds = [item["type"] for item in _completed(server, mark)]
    assert kinds == ["userMessage", "reasoning", "commandExecution", "fileChange", "agentMessage"]
    reasoning = _completed(server, mark)[1]
    assert reasoning["content"] == ["I should look first."]
    assert _completed(server, mark)[-1]["text"] == "Added notes/hello.txt."
    assert "hi" in _tool_messages(chat_model, 1)["c1"]
    assert "Success. Updated the following files:" in _tool_messages(chat_model)["c2"]
    # The history went back as chat messages: the calls on an assistant message, then their answers.
    assistant = [m for m in chat_model.requests[-1].body["messages"] if m["role"] == "assistant"]
    assert [call["id"] for m in assistant for call in m["tool_calls"]] == ["c1", "c2"]
    usage = [m for m in server.since(mark) if m.get("method") == "thread/tokenUsage/updated"][-1]
    assert usage["params"]["tokenUsage"]["last"]["inputTokens"] == 900


async def test_parallel_calls_of_one_message_all_run_and_are_answered(
    start_app: StartApp, chat_model: FakeChatServer, workdir: Path
) -> None:
    calls = [chat_tool_call("exec_command", {"cmd": f"echo out{n}"}, f"p{n}") for n in range(3)]
    chat_model.add(chat_reply(*calls, interleave_calls=True), chat_text_reply("All three ran."))
    server = await start_app(*chat_args(chat_model))
    mark, turn = await _turn(server, await _thread(server, workdir), "run three")

    assert turn["status"] == "completed"
    commands = [item for item in _completed(server, mark) if item["type"] == "commandExecution"]
    assert sorted(item["id"] for item in commands) == ["p0", "p1", "p2"]
    answers = _tool_messages(chat_model)
    assert [answers[f"p{n}"].count(f"out{n}") > 0 for n in range(3)] == [True, True, True]
    assert chat_model.requests[0].body["parallel_tool_calls"] is True


async def test_an_interrupt_mid_stream_ends_the_turn_and_the_model_is_told_next_time(
    start_app: StartApp, chat_model: FakeChatServer, workdir: Path
) -> None:
    chat_model.add(chat_reply(chat_text("partial answer"), gated("never")), chat_text_reply("next"))
    server = await start_app(*chat_args(chat_model))
    thread_id = await _thread(server, workdir)
    mark = server.mark()
    turn = await server.request(
        "turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "go"}]}
    )
    await chat_model.wait_for_gate("never")
    await server.request("turn/interrupt", {"threadId": thread_id, "turnId": turn["turn"]["id"]})
    done = await server.notification("turn/completed", after=mark)

    assert done["params"]["turn"]["status"] == "interrupted"
    deltas = [
        m["params"]["delta"] for m in server.since(mark) if m.get("method") == "item/agentMessage/delta"
    ]
    assert "".join(deltas) == "partial answer"
    await _turn(server, thread_id, "again")
    messages = chat_model.requests[-1].body["messages"]
    assert any("<turn_aborted>" in str(m["content"]) for m in messages)


async def test_a_429_is_retried_after_its_retry_after_and_the_turn_completes(
    start_app: StartApp, chat_model: FakeChatServer, workdir: Path
) -> None:
    chat_model.add(http_error(429, retry_after=0.05), chat_text_reply("after the wait"))
    server = await start_app(*chat_args(chat_model, retries=2))
    mark, turn = await _turn(server, await _thread(server, workdir), "hello")

    assert turn["status"] == "completed"
    notices = [m["params"] for m in server.since(mark) if m.get("method") == "error"]
    assert [n["willRetry"] for n in notices] == [True]
    assert notices[0]["error"]["codexErrorInfo"] == "rateLimitExceeded"
    assert _completed(server, mark)[-1]["text"] == "after the wait"
    assert len(chat_model.requests) == 2


async def test_a_resumed_thread_in_a_new_daemon_sends_the_same_history(
    tmp_path: Path, start_app: StartApp, chat_model: FakeChatServer, workdir: Path
) -> None:
    chat_model.add(
        chat_reply(chat_tool_call("exec_command", {"cmd": "echo 42"}, "r1")),
        chat_text_reply("noted"),
        chat_text_reply("42"),
    )
    home = tmp_path / "home"
    server = await start_app(*chat_args(chat_model), home=home)
    tid = await _thread(server, workdir)
    await _turn(server, tid, "remember the output")
    assert await server.close() == 0

    again = await start_app(*chat_args(chat_model), home=home)
    resumed = await again.request("thread/resume", {"threadId": tid})
    assert len(resumed["thread"]["turns"]) == 1
    await _turn(again, tid, "what was it?")
    before, after = chat_model.requests[1].body["messages"], chat_model.requests[2].body["messages"]
    assert after[: len(before)] == before
    assert "turn/completed" in methods(again.since(0))


async def test_compaction_summarises_through_the_chat_server_and_replaces_the_history(
    start_app: StartApp, chat_model: FakeChatServer, workdir: Path
) -> None:
    chat_model.add(
        chat_text_reply("answer one"), chat_text_reply("SUMMARY: user wants X"), chat_text_reply("after")
    )
    server = await start_app(*chat_args(chat_model))
    tid = await _thread(server, workdir)
    await _turn(server, tid, "please do X")
    mark = server.mark()
    assert await server.request("thread/compact/start", {"threadId": tid}) == {}
    await server.notification("turn/completed", after=mark)
    await _turn(server, tid, "continue")

    assert next(i["type"] for i in _completed(server, mark)) == "contextCompaction"
    assert "tools" not in chat_model.requests[1].body  # the summary request offers no tools
    sent = " ".join(str(m["content"]) for m in chat_model.requests[2].body["messages"])
    assert "SUMMARY: user wants X" in sent and "answer one" not in sent
