"""Daemon logs: JSON to a pipe or file, human lines to a terminal, filtered by TETHER_LOG, with ids."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from tests.conftest import StartServer
from tests.support.appserver import WAIT_S, AppServer
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _json_lines(server: AppServer) -> list[dict[str, Any]]:
    return [json.loads(line) for line in server.stderr().splitlines() if line.strip()]


async def _one_turn(server: AppServer, workdir: Path) -> str:
    thread_id: str = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    mark = server.mark()
    params = {"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]}
    await server.request("turn/start", params, request_id="the-turn")
    await server.notification("turn/completed", after=mark)
    return thread_id


async def test_logs_to_a_file_are_json_lines_naming_their_module(start_server: StartServer) -> None:
    server = await start_server(env={"TETHER_LOG": "info"})
    await server.request("account/read", {})
    await server.close()

    lines = _json_lines(server)  # raises when a line is not JSON
    opened = next(line for line in lines if line["event"] == "connection.opened")
    assert opened["logger"] == "tether_server.rpc.dispatcher"
    assert opened["level"] == "info"


async def test_every_line_of_a_requests_work_carries_its_request_and_thread_ids(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("hi"))
    server = await start_server(env={"TETHER_LOG": "info,tether_server.providers=debug"})
    thread_id = await _one_turn(server, workdir)
    await server.close()

    sent = next(line for line in _json_lines(server) if line["event"] == "responses_request")
    assert sent["logger"] == "tether_server.providers.responses"
    assert (sent["method"], sent["request_id"], sent["thread_id"]) == ("turn/start", "the-turn", thread_id)


async def test_tether_log_filters_by_module_and_level(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("hi"), script.text_reply("hi"))
    quiet = await start_server(env={"TETHER_LOG": "warning,tether_server.store=info"}, home=workdir / "a")
    await _one_turn(quiet, workdir)
    await quiet.close()
    chatty = await start_server(env={"TETHER_LOG": "info"}, home=workdir / "b")
    await _one_turn(chatty, workdir)
    await chatty.close()

    quiet_events = {(line["logger"], line["event"]) for line in _json_lines(quiet)}
    chatty_events = {line["event"] for line in _json_lines(chatty)}
    assert ("tether_server.store.sqlite_open", "store.migrated") in quiet_events
    assert all(logger.startswith("tether_server.store") for logger, _ in quiet_events)
    assert {"store.migrated", "connection.opened"} <= chatty_events
    assert "responses_request" not in chatty_events  # a debug line


async def test_logs_on_a_terminal_are_human_lines(tmp_path: Path) -> None:
    primary, replica = os.openpty()
    env = {**os.environ, "TETHER_HOME": str(tmp_path), "TETHER_LOG": "info"}
    env.pop("TETHER_LOG_FORMAT", None)
    env.pop("NO_COLOR", None)
    proc = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "tether_server", "app-server"),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=replica,
        env=env,
        cwd=str(tmp_path),
    )
    os.close(replica)
    seen = bytearray()
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(
            b'{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"1"}}}\n'
        )
        await proc.stdin.drain()
        async with asyncio.timeout(WAIT_S):
            await proc.stdout.readline()
            while b"connection.opened" not in seen:
                seen += await asyncio.to_thread(os.read, primary, 4096)
        proc.stdin.close()
        async with asyncio.timeout(WAIT_S):
            await proc.wait()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        os.close(primary)

    text = _ANSI.sub("", seen.decode(errors="replace"))
    line = next(line for line in text.splitlines() if "connection.opened" in line)
    assert not line.lstrip().startswith("{")
    assert "[info" in line
    assert "[tether_server.rpc.dispatcher]" in line
    assert "transport=stdio" in line
    assert "\x1b[" in seen.decode(errors="replace")  # coloured for a terminal


async def test_standard_library_log_lines_share_the_format(tmp_path: Path) -> None:
    # asyncio's slow-callback warning is the line that used to break the JSON stream under load.
    code = (
        "import logging\n"
        "from tether_server import log\n"
        "log.configure()\n"
        "logging.getLogger('asyncio').warning('Executing %s took %.3f seconds', '<Task>', 0.223)\n"
        "logging.getLogger('httpx').info('chatter below warning')\n"
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, stderr=asyncio.subprocess.PIPE, env={**os.environ, "TETHER_LOG": "info"}
    )
    async with asyncio.timeout(WAIT_S):
        _, err = await proc.communicate()
    lines = [json.loads(line) for line in err.decode().splitlines() if line.strip()]
    assert [(line["logger"], line["level"], line["event"]) for line in lines] == [
        ("asyncio", "warning", "Executing <Task> took 0.223 seconds")
    ]
