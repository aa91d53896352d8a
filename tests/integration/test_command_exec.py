"""`command/exec` and its follow-ups, with real processes (protocol.md §8.19)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import StartApp
from tests.support.appserver import WAIT_S, RpcErrorReply, mock_provider_args
from tests.support.rpcclient import RpcClient
from tests.support.wsclient import SocketServer
from tether_testing.fake_responses import FakeResponsesServer

FULL_ACCESS = {"type": "dangerFullAccess"}


def _deltas(client: RpcClient, process_id: str, stream: str | None = None) -> list[dict[str, Any]]:
    return [
        m["params"]
        for m in client.messages
        if m.get("method") == "command/exec/outputDelta"
        and m["params"]["processId"] == process_id
        and (stream is None or m["params"]["stream"] == stream)
    ]


def _streamed(client: RpcClient, process_id: str, stream: str) -> bytes:
    return b"".join(base64.b64decode(d["deltaBase64"]) for d in _deltas(client, process_id, stream))


async def _until_output(client: RpcClient, process_id: str, wanted: Callable[[bytes], bool]) -> bytes:
    """Wait until what the process streamed on stdout satisfies `wanted`."""

    def arrived(message: dict[str, Any]) -> bool:
        return message.get("method") == "command/exec/outputDelta" and wanted(
            _streamed(client, process_id, "stdout")
        )

    await client.wait_for(arrived)
    return _streamed(client, process_id, "stdout")


async def _start(client: RpcClient, params: dict[str, Any]) -> asyncio.Task[dict[str, Any]]:
    """Send `command/exec` without waiting; the reply arrives when the process exits."""
    mark = client.mark()
    task = asyncio.create_task(client.request("command/exec", params))
    # The request is on the wire once anything (e.g. its first output) comes back, or quickly anyway.
    with contextlib.suppress(TimeoutError):
        await client.wait_for(lambda m: True, after=mark, within_s=0.5)
    return task


async def test_buffered_exec_returns_exit_code_and_both_streams_separately(
    start_app: StartApp, workdir: Path
) -> None:
    server = await start_app(cwd=workdir)
    result = await server.request(
        "command/exec",
        {"command": ["/bin/sh", "-c", "pwd; echo err >&2; exit 7"], "cwd": str(workdir)},
    )
    assert result == {"exitCode": 7, "stdout": f"{workdir}\n", "stderr": "err\n"}


async def test_exec_runs_in_the_servers_cwd_by_default(start_app: StartApp, workdir: Path) -> None:
    server = await start_app(cwd=workdir)
    result = await server.request("command/exec", {"command": ["pwd"]})
    assert result == {"exitCode": 0, "stdout": f"{workdir}\n", "stderr": ""}


async def test_empty_command_and_unnamed_streaming_are_refused(start_app: StartApp, workdir: Path) -> None:
    server = await start_app(cwd=workdir)
    with pytest.raises(RpcErrorReply) as empty:
        await server.request("command/exec", {"command": []})
    assert (empty.value.code, empty.value.message) == (-32600, "command must not be empty")
    for flag in ("tty", "streamStdin", "streamStdoutStderr"):
        with pytest.raises(RpcErrorReply) as unnamed:
            await server.request("command/exec", {"command": ["true"], flag: True})
        assert unnamed.value.message == "command/exec tty or streaming requires a client-supplied processId"


async def test_streamed_output_arrives_as_base64_deltas_and_is_not_repeated_in_the_result(
    start_app: StartApp,
    workdir: Path,
) -> None:
    server = await start_app(cwd=workdir)
    result = await server.request(
        "command/exec",
        {
            "command": ["/bin/sh", "-c", "printf 'out\\001'; printf err >&2; exit 3"],
            "processId": "p1",
            "streamStdoutStderr": True,
        },
    )
    assert result == {"exitCode": 3, "stdout": "", "stderr": ""}
    assert _streamed(server, "p1", "stdout") == b"out\x01"
    assert _streamed(server, "p1", "stderr") == b"err"
    assert all(d["capReached"] is False for d in _deltas(server, "p1"))
    last_delta = max(
        i for i, m in enumerate(server.messages) if m.get("method") == "command/exec/outputDelta"
    )
    reply = next(i for i, m in enumerate(server.messages) if m.get("result") == result)
    assert last_delta < reply


async def test_stdin_can_be_streamed_and_closed(start_app: StartApp, workdir: Path) -> None:
    server = await start_app(cwd=workdir)
    task = await _start(
        server, {"command": ["/bin/sh", "-c", "cat; echo done"], "processId": "cat", "streamStdin": True}
    )
    data = base64.b64encode(b"hello\n").decode()
    assert await server.request("command/exec/write", {"processId": "cat", "deltaBase64": data}) == {}
    await server.request("command/exec/write", {"processId": "cat", "closeStdin": True})
    async with asyncio.timeout(WAIT_S):
        result = await task
    assert result == {"exitCode": 0, "stdout": "hello\ndone\n", "stderr": ""}


async def test_tty_mode_takes_input_resizes_and_merges_output_into_stdout(
    start_app: StartApp, workdir: Path
) -> None:
    server = await start_app(cwd=workdir)
    # `sed` only ends at end of input: the closeStdin (an end-of-file character on a PTY) is needed.
    script = "stty size; read a; stty size; sed 's/^/got /' >&2"
    task = await _start(
        server,
        {
            "command": ["/bin/sh", "-c", script],
            "processId": "tty",
            "tty": True,
            "size": {"rows": 10, "cols": 40},
        },
    )
    await _until_output(server, "tty", lambda out: b"10 40\r\n" in out)
    await server.request("command/exec/resize", {"processId": "tty", "size": {"rows": 30, "cols": 100}})
    line = base64.b64encode(b"x\n").decode()
    await server.request("command/exec/write", {"processId": "tty", "deltaBase64": line})
    await _until_output(server, "tty", lambda out: b"30 100\r\n" in out)
    word = base64.b64encode(b"hello\n").decode()
    await server.request("command/exec/write", {"processId": "tty", "deltaBase64": word, "closeStdin": True})
    async with asyncio.timeout(WAIT_S):
        result = await task
    assert result == {"exitCode": 0, "stdout": "", "stderr": ""}
    assert b"got hello\r\n" in _streamed(server, "tty", "stdout")
    assert _deltas(server, "tty", "stderr") == []


async def test_terminate_kills_the_process_and_the_exec_reply_follows(
    start_app: StartApp, workdir: Path
) -> None:
    server = await start_app(cwd=workdir)
    task = await _start(
        server, {"command": ["sleep", "30"], "processId": "sleeper", "streamStdoutStderr": True}
    )
    assert await server.request("command/exec/terminate", {"processId": "sleeper"}) == {}
    async with asyncio.timeout(WAIT_S):
        result = await task
    assert result["exitCode"] == 128 + 9


async def test_output_beyond_the_cap_is_dropped_and_the_last_chunk_says_so(
    start_app: StartApp, workdir: Path
) -> None:
    server = await start_app(cwd=workdir)
    command = ["/bin/sh", "-c", "head -c 200000 /dev/zero | tr '\\0' a; echo tail >&2"]
    buffered = await server.request("command/exec", {"command": command, "outputBytesCap": 100})
    assert buffered == {"exitCode": 0, "stdout": "a" * 100, "stderr": "tail\n"}
    streamed = await server.request(
        "command/exec",
        {"command": command, "outputBytesCap": 100, "processId": "cap", "streamStdoutStderr": True},
    )
    assert streamed["exitCode"] == 0
    assert _streamed(server, "cap", "stdout") == b"a" * 100
    stdout_deltas = _deltas(server, "cap", "stdout")
    assert stdout_deltas[-1]["capReached"] is True
    assert all(not d["capReached"] for d in stdout_deltas[:-1])
    uncapped = await server.request("command/exec", {"command": command, "disableOutputCap": True})
    assert len(uncapped["stdout"]) == 200000


async def test_a_command_that_runs_too_long_is_killed_with_exit_code_124(
    start_app: StartApp, workdir: Path
) -> None:
    server = await start_app(cwd=workdir)
    result = await server.request(
        "command/exec", {"command": ["/bin/sh", "-c", "echo started; sleep 30"], "timeoutMs": 300}
    )
    assert result == {"exitCode": 124, "stdout": "started\n", "stderr": ""}


async def test_env_entries_set_and_null_unsets_variables(start_app: StartApp, workdir: Path) -> None:
    server = await start_app(cwd=workdir)
    result = await server.request(
        "command/exec",
        {
            "command": ["/bin/sh", "-c", 'echo "$TETHER_T_FOO:${HOME-unset}"'],
            "env": {"TETHER_T_FOO": "bar", "HOME": None},
        },
    )
    assert result["stdout"] == "bar:unset\n"


async def test_the_default_sandbox_is_read_only_and_a_refused_write_is_just_an_exit_code(
    start_app: StartApp, workdir: Path
) -> None:
    server = await start_app(cwd=workdir)
    write = ["/bin/sh", "-c", "echo hi > made.txt"]
    denied = await server.request("command/exec", {"command": write, "cwd": str(workdir)})
    assert denied["exitCode"] != 0
    assert "Read-only file system" in denied["stderr"]
    assert not (workdir / "made.txt").exists()
    allowed = await server.request(
        "command/exec", {"command": write, "cwd": str(workdir), "sandboxPolicy": FULL_ACCESS}
    )
    assert allowed["exitCode"] == 0
    assert (workdir / "made.txt").read_text() == "hi\n"


async def test_follow_ups_for_an_unknown_process_id_are_errors(start_app: StartApp, workdir: Path) -> None:
    server = await start_app(cwd=workdir)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("command/exec/write", {"processId": "nope", "deltaBase64": ""}),
        ("command/exec/resize", {"processId": "nope", "size": {"rows": 1, "cols": 1}}),
        ("command/exec/terminate", {"processId": "nope"}),
    ]
    for method, params in calls:
        with pytest.raises(RpcErrorReply) as error:
            await server.request(method, params)
        assert (error.value.code, error.value.message) == (
            -32600,
            'no active command/exec for process id "nope"',
        )


async def test_other_requests_are_answered_while_a_command_runs(start_app: StartApp, workdir: Path) -> None:
    server = await start_app(cwd=workdir)
    task = await _start(server, {"command": ["sleep", "30"], "processId": "bg", "streamStdin": True})
    assert await server.request("thread/loaded/list", {}) == {"data": [], "nextCursor": None}
    await server.request("command/exec/terminate", {"processId": "bg"})
    async with asyncio.timeout(WAIT_S):
        await task


async def _gone(pid: int) -> None:
    """Wait until process `pid` has exited."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    loop = asyncio.get_running_loop()
    exited = asyncio.Event()
    loop.add_reader(fd, exited.set)
    try:
        async with asyncio.timeout(WAIT_S):
            await exited.wait()
    finally:
        loop.remove_reader(fd)
        os.close(fd)


async def test_closing_the_connection_kills_its_processes(
    tmp_path: Path, fake_model: FakeResponsesServer
) -> None:
    server = await SocketServer.start(
        tmp_path / "home", [*mock_provider_args(fake_model.base_url), "--listen", "unix://"]
    )
    try:
        client = await server.connect_unix()
        await client.initialize()
        # The grandchild is not the direct child, so only a process-group kill reaches it.
        script = "sleep 60 & echo $!; wait"
        params = {
            "command": ["/bin/sh", "-c", script],
            "processId": "orphan",
            "streamStdoutStderr": True,
            "sandboxPolicy": FULL_ACCESS,
            "disableTimeout": True,
        }
        task = await _start(client, params)
        out = await _until_output(client, "orphan", lambda o: o.endswith(b"\n"))
        pid = int(out.decode().strip())
        await client.close(check=False)
        task.cancel()
        await _gone(pid)
        assert server.proc.returncode is None
    finally:
        await server.stop()


async def test_the_exec_reply_waits_for_the_process(start_app: StartApp, workdir: Path) -> None:
    server: RpcClient = await start_app(cwd=workdir)
    result = await server.request("command/exec", {"command": ["/bin/sh", "-c", "sleep 0.2; echo late"]})
    assert result["stdout"] == "late\n"
