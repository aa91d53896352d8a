"""A sandboxed command dies with a daemon killed outright (SIGKILL: no shutdown code runs).

Sandboxed commands are spawned without a preexec function (vfork: a fork of the whole daemon cost
15-25 ms a command); what ends them with the daemon is bwrap's `--die-with-parent`. Processes are
found by a marker in their command line and watched through pidfds.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from tests.chaos.stubborn import new_marker, pids_with, stubborn_command, wait_for_stubborn, wait_readable
from tests.conftest import StartServer
from tests.support.appserver import WAIT_S
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


async def test_a_sandboxed_command_that_ignores_sigterm_dies_with_a_killed_daemon(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    marker = new_marker()
    server = await start_server()
    thread = await server.request("thread/start", {"cwd": str(workdir), "sandbox": "workspace-write"})
    call = {"cmd": stubborn_command(marker), "yield_time_ms": 30_000}
    fake_model.add(script.reply(script.function_call("exec_command", call)), script.text_reply("left it"))
    mark = server.mark()
    await server.request(
        "turn/start", {"threadId": thread["thread"]["id"], "input": [{"type": "text", "text": "run it"}]}
    )
    await server.notification(
        "item/commandExecution/outputDelta", after=mark, where=lambda p: "READY" in p["delta"]
    )
    tree = await wait_for_stubborn(marker, 2)
    watches = [os.pidfd_open(pid) for pid in tree]  # opened while they live: each end is an event

    server.proc.kill()
    async with asyncio.timeout(WAIT_S):
        await server.proc.wait()
    try:
        for watch in watches:
            await wait_readable(watch)
    finally:
        for watch in watches:
            os.close(watch)
        for pid in pids_with(marker):
            os.kill(pid, signal.SIGKILL)
    assert pids_with(marker) == set()
