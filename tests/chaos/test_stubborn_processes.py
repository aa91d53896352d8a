"""Commands and MCP servers that ignore SIGTERM still end: SIGKILL follows a short grace period,
for the whole process group, on interrupt, on timeout and when the daemon shuts down.

Every process is found again by a marker in its command line: when the test says nothing is
left, it has looked at /proc.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

from tests.chaos.stubborn import (
    new_marker,
    parent_of,
    pids_with,
    stubborn_command,
    wait_for_stubborn,
    wait_readable,
    write_mcp_config,
)
from tests.conftest import StartServer
from tests.integration.tools_ext.mcp_support import wait_status
from tests.support.appserver import WAIT_S, AppServer
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


def _text(text: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": text}]


async def _thread(server: AppServer, workdir: Path, sandbox: str) -> str:
    result = await server.request("thread/start", {"cwd": str(workdir), "sandbox": sandbox})
    return str(result["thread"]["id"])


async def _exited(server: AppServer) -> int:
    async with asyncio.timeout(WAIT_S):
        return await server.proc.wait()


async def _start_stubborn_turn(
    server: AppServer, fake_model: FakeResponsesServer, tid: str, marker: str, yield_ms: int
) -> tuple[int, str]:
    """A turn whose exec_command runs the stubborn command; (mark, turn id) once it runs."""
    call = {"cmd": stubborn_command(marker), "yield_time_ms": yield_ms}
    fake_model.add(script.reply(script.function_call("exec_command", call)), script.text_reply("left it"))
    mark = server.mark()
    turn = await server.request("turn/start", {"threadId": tid, "input": _text("run it")})
    await server.notification(
        "item/commandExecution/outputDelta", after=mark, where=lambda p: "READY" in p["delta"]
    )
    await wait_for_stubborn(marker, 2)
    return mark, str(turn["turn"]["id"])


async def test_interrupt_and_timeout_kill_sandboxed_commands_that_ignore_sigterm_and_their_children(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await start_server()
    tid = await _thread(server, workdir, "workspace-write")
    marker = new_marker()
    mark, turn_id = await _start_stubborn_turn(server, fake_model, tid, marker, 30_000)

    await server.request("turn/interrupt", {"threadId": tid, "turnId": turn_id})
    done = await server.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "interrupted"
    assert pids_with(marker) == set()

    fake_model.add(script.text_reply("still here"))
    mark = server.mark()
    await server.request("turn/start", {"threadId": tid, "input": _text("again")})
    done = await server.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "completed"

    # command/exec (sandboxed read-only by default) past its timeoutMs.
    marker = new_marker()
    argv = ["/bin/sh", "-c", stubborn_command(marker)]
    timed = await server.request("command/exec", {"command": argv, "cwd": str(workdir), "timeoutMs": 500})
    assert timed["exitCode"] == 124
    assert "READY" in timed["stdout"]
    assert pids_with(marker) == set()


async def test_sigterm_drains_then_kills_a_background_session_that_ignores_sigterm(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await start_server()
    tid = await _thread(server, workdir, "danger-full-access")
    marker = new_marker()
    mark, _turn = await _start_stubborn_turn(server, fake_model, tid, marker, 250)
    done = await server.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "completed"
    assert pids_with(marker), "the session outlives its turn, as a background process"

    server.proc.send_signal(signal.SIGTERM)
    assert await _exited(server) == 0
    assert pids_with(marker) == set()


async def test_stdin_eof_ends_the_daemon_and_the_running_commands_that_ignore_sigterm(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await start_server()
    tid = await _thread(server, workdir, "danger-full-access")
    in_turn = new_marker()
    await _start_stubborn_turn(server, fake_model, tid, in_turn, 30_000)
    standalone = new_marker()
    params: dict[str, Any] = {
        "command": ["/bin/sh", "-c", stubborn_command(standalone)],
        "cwd": str(workdir),
        "processId": "p1",
        "streamStdoutStderr": True,
        "timeoutMs": 600_000,
    }
    await server.send({"jsonrpc": "2.0", "id": server.next_id(), "method": "command/exec", "params": params})
    await wait_for_stubborn(standalone, 2)

    assert server.proc.stdin is not None
    server.proc.stdin.close()
    await _exited(server)
    assert pids_with(in_turn) == set()
    assert pids_with(standalone) == set()


async def test_a_stubborn_mcp_server_is_killed_on_reload_and_on_sigterm_and_a_hung_call_is_interruptible(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    marker = new_marker()
    write_mcp_config(tmp_path / "home", "stub", marker, tool_timeout_sec=600)
    server = await start_server(home=tmp_path / "home")
    first = await wait_for_stubborn(marker, 2)
    await wait_status(server, "stub", "connected")
    tid = await _thread(server, workdir, "danger-full-access")

    fake_model.add(script.reply(script.function_call("mcp__stub__hang", {})))
    fake_model.add(script.text_reply("never"))
    mark = server.mark()
    turn = await server.request("turn/start", {"threadId": tid, "input": _text("hang")})
    await server.notification("item/started", after=mark, where=lambda p: p["item"]["type"] == "mcpToolCall")
    await server.request("turn/interrupt", {"threadId": tid, "turnId": turn["turn"]["id"]})
    done = await server.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "interrupted"
    fake_model.discard_remaining()

    mark = server.mark()
    await server.request("config/mcpServer/reload", {})
    # The new server starts once the old one is stopped.
    await server.notification(
        "mcpServer/startupStatus/updated", after=mark, where=lambda p: p["status"] == "starting"
    )
    assert first.isdisjoint(pids_with(marker)), "the old server and its child are gone"
    await wait_status(server, "stub", "connected", after=mark)
    assert await wait_for_stubborn(marker, 2)

    server.proc.send_signal(signal.SIGTERM)
    assert await _exited(server) == 0
    assert pids_with(marker) == set()


async def test_a_stubborn_mcp_server_dies_with_a_daemon_killed_outright(
    start_server: StartServer, tmp_path: Path
) -> None:
    marker = new_marker()
    write_mcp_config(tmp_path / "home", "stub", marker)
    server = await start_server(home=tmp_path / "home")
    await wait_status(server, "stub", "connected")
    tree = await wait_for_stubborn(marker, 2)
    (mcp_server,) = {pid for pid in tree if parent_of(pid) not in tree}
    watch = os.pidfd_open(mcp_server)  # opened while it lives: its end is an event to wait on

    server.proc.kill()
    await _exited(server)
    try:
        await wait_readable(watch)
    finally:
        os.close(watch)
        for pid in pids_with(marker):  # its own child is the server's to end: ours to clean up
            os.kill(pid, signal.SIGKILL)


async def test_stubborn_background_terminals_and_spawned_processes_end_on_terminate_unload_and_sigterm(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await start_server("-c", "thread_unload_delay_secs=0", initialize=False)
    await server.initialize(experimental=True)
    # Sandboxed: the session outlives its turn inside bubblewrap, and its whole tree ends.
    tid = await _thread(server, workdir, "workspace-write")
    marker = new_marker()
    mark, _turn = await _start_stubborn_turn(server, fake_model, tid, marker, 250)
    await server.notification("turn/completed", after=mark)
    (terminal,) = (await server.request("thread/backgroundTerminals/list", {"threadId": tid}))["data"]
    assert pids_with(marker)
    terminate = {"threadId": tid, "processId": terminal["processId"]}
    assert await server.request("thread/backgroundTerminals/terminate", terminate) == {"terminated": True}
    assert pids_with(marker) == set()

    marker = new_marker()
    mark, _turn = await _start_stubborn_turn(server, fake_model, tid, marker, 250)
    await server.notification("turn/completed", after=mark)
    tree = await wait_for_stubborn(marker, 2)
    mark = server.mark()
    await server.request("thread/unsubscribe", {"threadId": tid})
    await server.notification("thread/closed", after=mark)
    for pid in tree:
        await _ended(pid)

    spawned = new_marker()
    params = {
        "command": ["/bin/sh", "-c", stubborn_command(spawned)],
        "cwd": str(workdir),
        "processHandle": "dev",
        "timeoutMs": None,
    }
    assert await server.request("process/spawn", params) == {}
    await wait_for_stubborn(spawned, 2)
    server.proc.send_signal(signal.SIGTERM)
    assert await _exited(server) == 0
    assert pids_with(spawned) == set()


async def _ended(pid: int) -> None:
    try:
        watch = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        await wait_readable(watch)
    finally:
        os.close(watch)


async def test_sandboxed_background_terminals_and_spawned_processes_die_with_a_daemon_killed_outright(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await start_server(initialize=False)
    await server.initialize(experimental=True)
    tid = await _thread(server, workdir, "workspace-write")
    marker = new_marker()
    mark, _turn = await _start_stubborn_turn(server, fake_model, tid, marker, 250)
    await server.notification("turn/completed", after=mark)
    tree = await wait_for_stubborn(marker, 2)
    spawned = new_marker()
    command = ["/bin/sh", "-c", stubborn_command(spawned)]
    await server.request("process/spawn", {"command": command, "cwd": str(workdir), "processHandle": "p"})
    tree |= await wait_for_stubborn(spawned, 2)
    server.proc.kill()
    await _exited(server)
    # bwrap dies with the daemon (--die-with-parent), and its PID namespace with it.
    for pid in tree:
        await _ended(pid)
