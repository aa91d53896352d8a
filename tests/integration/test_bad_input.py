"""Bad input found by the first outside fuzz run: each gets a clear -32602, leaks nothing, and the
daemon keeps serving valid requests afterwards.

The leak checks count the daemon's descriptors, so they run on a real process.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import StartApp, StartServer
from tests.support.appserver import AppServer
from tests.support.rpcclient import RpcClient, RpcErrorReply
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

FULL_ACCESS = {"type": "dangerFullAccess"}


def _open_fds(server: AppServer) -> int:
    return len(os.listdir(f"/proc/{server.proc.pid}/fd"))


async def _invalid(server: RpcClient, method: str, params: dict[str, Any]) -> str:
    with pytest.raises(RpcErrorReply) as refused:
        await server.request(method, params)
    assert refused.value.code == -32602, refused.value
    return refused.value.message


async def test_thread_list_accepts_every_sort_key_of_the_schema(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("hi"))
    server = await start_app()
    tid = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    mark = server.mark()
    await server.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "hello"}]})
    await server.notification("turn/completed", after=mark)
    for key in ("created_at", "updated_at", "recency_at"):
        listed = await server.request("thread/list", {"sortKey": key})
        assert [t["id"] for t in listed["data"]] == [tid], key
    # Section position orders one section (Codex 0.169.0 refuses it without a section filter).
    pinned = "01984de2-8f74-7c91-a3b2-5c5e937cf318"
    await server.request("thread/section/move", {"threadId": tid, "sectionId": pinned})
    listed = await server.request("thread/list", {"sortKey": "section_position", "sectionId": pinned})
    assert [t["id"] for t in listed["data"]] == [tid]


@pytest.mark.parametrize(
    "bad",
    [
        {"command": ["true"], "tty": True, "processId": "p", "size": {"rows": 70000, "cols": 80}},
        {"command": ["true"], "tty": True, "processId": "p", "size": {"rows": 24, "cols": -1}},
        {"command": ["echo", "a\0b"]},
        {"command": ["true"], "cwd": "/tmp\0/x"},
        {"command": ["true"], "env": {"A\0B": "1"}},
        {"command": ["true"], "env": {"A=B": "1"}},
        {"command": ["true"], "env": {"A": "x\0y"}},
    ],
    ids=["rows>65535", "cols<0", "nul-argv", "nul-cwd", "nul-env-name", "eq-env-name", "nul-env-value"],
)
async def test_command_exec_refuses_unrepresentable_input_and_leaks_no_descriptor(
    start_server: StartServer, workdir: Path, bad: dict[str, Any]
) -> None:
    server = await start_server()
    params = {**bad, "sandboxPolicy": FULL_ACCESS, "cwd": bad.get("cwd", str(workdir))}
    await _invalid(server, "command/exec", params)  # warm up whatever a first request opens
    before = _open_fds(server)
    for _ in range(50):
        await _invalid(server, "command/exec", params)
    assert _open_fds(server) == before
    ok = await server.request("command/exec", {"command": ["echo", "fine"], "sandboxPolicy": FULL_ACCESS})
    assert ok["exitCode"] == 0 and ok["stdout"] == "fine\n"


async def test_resize_refuses_a_size_out_of_range(start_app: StartApp, workdir: Path) -> None:
    server = await start_app()
    message = await _invalid(
        server, "command/exec/resize", {"processId": "nope", "size": {"rows": 1, "cols": 65536}}
    )
    assert "cols" in message


async def test_a_model_command_with_a_nul_byte_fails_the_item_and_leaks_nothing(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    calls = [
        script.reply(script.function_call("exec_command", {"cmd": "echo a\0b"}, f"c{i}")) for i in range(5)
    ]
    fake_model.add(*calls[:1], script.text_reply("done"))
    server = await start_server("-c", 'sandbox_mode="danger-full-access"')
    tid = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]

    async def turn() -> list[dict[str, Any]]:
        mark = server.mark()
        await server.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "go"}]})
        done = await server.notification("turn/completed", after=mark)
        assert done["params"]["turn"]["status"] == "completed"
        return [
            m["params"]["item"]
            for m in server.since(mark)
            if m.get("method") == "item/completed" and m["params"]["item"]["type"] == "commandExecution"
        ]

    first = await turn()
    assert [c["status"] for c in first] == ["failed"]
    before = _open_fds(server)
    for call in calls[1:]:
        fake_model.add(call, script.text_reply("done"))
    commands: list[dict[str, Any]] = []
    for _ in range(4):
        commands += await turn()
    assert [c["status"] for c in commands] == ["failed"] * 4
    assert _open_fds(server) == before
