"""MCP servers configured in `mcp_servers`: real fixture servers (the `mcp` SDK) over stdio and HTTP."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from tests.conftest import StartServer
from tests.integration.background.dev_server import wait_gone
from tests.integration.tools_ext.mcp_support import (
    free_port,
    items_of,
    run_turn,
    start_http_fixture,
    status_of,
    stdio_server,
    wait_status,
)
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


def _output(fake: FakeResponsesServer, call_id: str) -> str:
    for request in reversed(fake.requests):
        for item in request.body["input"]:
            if item.get("call_id") == call_id and item["type"] == "function_call_output":
                return str(item["output"])
    raise AssertionError(f"no output for {call_id}")


async def _thread(server: Any, workdir: Path) -> str:
    result = await server.request("thread/start", {"cwd": str(workdir)})
    return str(result["thread"]["id"])


async def test_discovery_and_a_call_with_structured_content_over_stdio(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    log = tmp_path / "calls.log"
    server = await start_server(*stdio_server("fx", "--log", str(log)))
    status = await wait_status(server, "fx", "connected")
    assert status["serverInfo"]["name"] == "fixture" and status["serverInfo"]["version"] == "1.2.3"
    assert {"lookup", "wipe", "ask_color", "crash", "big"} <= set(status["tools"])
    assert status["tools"]["lookup"]["annotations"]["readOnlyHint"] is True
    assert [r["uri"] for r in status["resources"]] == ["fixture://readme"]

    # As Codex 0.169.0: the MCP tools are deferred behind tool_search, a found tool is called by
    # its own name in its server's namespace.
    fake_model.add(
        script.reply(script.tool_search_call("lookup key", "call_s")),
        script.reply(script.function_call("lookup", {"key": "abc"}, "call_1", namespace="mcp__fx")),
        script.text_reply("The value is ABC."),
    )
    thread_id = await _thread(server, workdir)
    mark, turn = await run_turn(server, thread_id, "look abc up")
    assert turn["status"] == "completed"

    names = [t.get("name", t["type"]) for t in fake_model.requests[0].body["tools"]]
    assert "tool_search" in names and not [n for n in names if n.startswith("mcp__")]
    (found,) = [i for i in fake_model.requests[1].body["input"] if i["type"] == "tool_search_output"]
    assert [(n["name"], [t["name"] for t in n["tools"]]) for n in found["tools"]] == [("mcp__fx", ["lookup"])]

    started = items_of(server, mark, "item/started", "mcpToolCall")
    completed = items_of(server, mark, "item/completed", "mcpToolCall")
    assert [i["status"] for i in started] == ["inProgress"]
    (item,) = completed
    assert item["server"] == "fx" and item["tool"] == "lookup" and item["arguments"] == {"key": "abc"}
    assert item["status"] == "completed" and item["error"] is None
    assert item["result"]["structuredContent"] == {"key": "abc", "value": "ABC"}
    assert isinstance(item["durationMs"], int)
    progress = [m["params"] for m in server.since(mark) if m.get("method") == "item/mcpToolCall/progress"]
    assert [p["message"] for p in progress] == ["looking up abc"]
    assert progress[0]["itemId"] == "call_1"
    assert '"value": "ABC"' in _output(fake_model, "call_1")
    # Read-only: nobody was asked.
    assert not [m for m in server.since(mark) if m.get("method") == "mcpServer/elicitation/request"]
    assert log.read_text() == "lookup abc\n"


async def test_streamable_http_server_round_trip_and_direct_client_calls(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    port = free_port()
    proc = await start_http_fixture(port, tmp_path / "http.log")
    try:
        server = await start_server(
            "-c",
            f'mcp_servers.web.url="http://127.0.0.1:{port}/mcp"',
            "-c",
            'mcp_servers.web.http_headers={"X-Test" = "1"}',
            "-c",
            'mcp_servers.web.disabled_tools=["crash"]',
        )
        status = await wait_status(server, "web", "connected")
        assert status["httpOrigin"] == f"http://127.0.0.1:{port}"
        assert "crash" not in status["tools"] and "lookup" in status["tools"]

        fake_model.add(
            script.reply(script.function_call("mcp__web__lookup", {"key": "zz"}, "call_h")),
            script.text_reply("done"),
        )
        thread_id = await _thread(server, workdir)
        mark, _turn = await run_turn(server, thread_id, "look zz up")
        (item,) = items_of(server, mark, "item/completed", "mcpToolCall")
        assert item["status"] == "completed" and item["result"]["structuredContent"]["value"] == "ZZ"
        assert "mcp__web__crash" not in [t.get("name") for t in fake_model.requests[0].body["tools"]]

        direct = await server.request(
            "mcpServer/tool/call",
            {"threadId": thread_id, "server": "web", "tool": "lookup", "arguments": {"key": "q"}},
        )
        assert direct["structuredContent"] == {"key": "q", "value": "Q"} and direct["isError"] is False
        read = await server.request("mcpServer/resource/read", {"server": "web", "uri": "fixture://readme"})
        assert read["contents"][0]["text"] == "fixture readme"
        missing = await server.call(
            "mcpServer/tool/call", {"threadId": thread_id, "server": "nope", "tool": "x"}
        )
        assert missing.get("error", {}).get("message") == "MCP server not found: nope"
    finally:
        proc.kill()
        await proc.wait()


async def test_a_destructive_tool_asks_first_accepted_then_declined(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    log = tmp_path / "calls.log"
    server = await start_server(*stdio_server("fx", "--log", str(log)))
    await wait_status(server, "fx", "connected")
    fake_model.add(
        script.reply(script.function_call("mcp__fx__wipe", {"target": "one"}, "call_a")),
        script.text_reply("wiped one"),
        script.reply(script.function_call("mcp__fx__wipe", {"target": "two"}, "call_d")),
        script.text_reply("could not wipe two"),
    )
    thread_id = await _thread(server, workdir)
    for target, action in (("one", "accept"), ("two", "decline")):
        mark = server.mark()
        await server.request(
            "turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": target}]}
        )
        ask = await server.server_request("mcpServer/elicitation/request", after=mark)
        params = ask["params"]
        assert params["serverName"] == "fx" and params["threadId"] == thread_id and params["mode"] == "form"
        assert params["_meta"]["codex_approval_kind"] == "mcp_tool_call"
        assert "wipe" in params["message"]
        await server.respond(ask["id"], {"action": action, "content": None})
        await server.notification("turn/completed", after=mark, within_s=60)
        resolved = [m for m in server.since(mark) if m.get("method") == "serverRequest/resolved"]
        assert resolved and resolved[0]["params"]["requestId"] == ask["id"]
        (item,) = items_of(server, mark, "item/completed", "mcpToolCall")
        if action == "accept":
            assert item["status"] == "completed"
        else:
            assert item["status"] == "failed" and item["error"]["message"] == "user rejected MCP tool call"
            assert "rejected" in _output(fake_model, "call_d")
    assert log.read_text() == "wipe one\n"


async def test_the_first_request_waits_for_a_slow_server_and_its_tool_works_at_once(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    # The server answers its handshake only after two seconds: a turn started right away used to
    # go out without its tools, and the model's call to one failed as unknown.
    server = await start_server(*stdio_server("slow", "--slow", "2", startup_timeout_sec=30))
    fake_model.add(
        script.reply(
            script.tool_search_call("lookup", "call_s"),
            script.function_call("lookup", {"key": "abc"}, "call_slow", namespace="mcp__slow"),
        ),
        script.text_reply("The value is ABC."),
    )
    thread_id = await _thread(server, workdir)
    assert (await status_of(server, "slow"))["runtimeStatus"] == "starting"
    mark, turn = await run_turn(server, thread_id, "use the slow server's lookup tool on abc")
    assert turn["status"] == "completed"
    (found,) = [i for i in fake_model.requests[1].body["input"] if i["type"] == "tool_search_output"]
    assert [n["name"] for n in found["tools"]] == ["mcp__slow"]
    (item,) = items_of(server, mark, "item/completed", "mcpToolCall")
    assert item["status"] == "completed" and item["server"] == "slow" and item["tool"] == "lookup"
    assert "ABC" in _output(fake_model, "call_slow")


async def test_a_server_that_never_starts_delays_the_first_request_at_most_its_timeout_and_is_reported(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    limit = 4
    server = await start_server(*stdio_server("broken", "--hang", startup_timeout_sec=limit))
    held = script.text_reply("hello")
    held["steps"].insert(0, script.gated("hold"))
    fake_model.add(held)
    mark = server.mark()
    thread_id = await _thread(server, workdir)
    params = {"threadId": thread_id, "input": [{"type": "text", "text": "hi"}]}
    asked = time.monotonic()
    await server.request("turn/start", params)
    await fake_model.wait_for_gate("hold", within_s=limit + 10)
    waited = time.monotonic() - asked
    # The request went out once the server had failed, not while it was still starting.
    status = await status_of(server, "broken")
    assert status["runtimeStatus"] == "failed"
    assert f"timed out after {limit} seconds" in status["toolsError"]
    assert "startup_timeout_sec" in status["toolsError"]
    # The wait itself ends by the timeout; the rest is the daemon's own work on a busy machine.
    assert waited <= limit + 3, f"the first request waited {waited:.1f}s for a {limit}s startup timeout"
    failed = await server.notification(
        "mcpServer/startupStatus/updated", after=mark, where=lambda p: p["status"] == "failed"
    )
    assert failed["params"]["name"] == "broken" and "timed out" in failed["params"]["error"]
    fake_model.release("hold")
    done = await server.notification("turn/completed", after=mark, within_s=30)
    assert done["params"]["turn"]["status"] == "completed"
    assert not [t for t in fake_model.requests[0].body["tools"] if str(t.get("name", "")).startswith("mcp__")]


async def test_a_startup_timeout_is_reported_as_failed_and_stdin_eof_still_ends_the_daemon(
    start_server: StartServer, tmp_path: Path
) -> None:
    pid_file = tmp_path / "hung.pid"
    hung_server = [str(Path(__file__).with_name("mcp_hung_server.py")), str(pid_file)]
    server = await start_server(
        *["-c", f"mcp_servers.slow.command={json.dumps(sys.executable)}"],
        *["-c", f"mcp_servers.slow.args={json.dumps(hung_server)}"],
        *["-c", "mcp_servers.slow.startup_timeout_sec=1"],
    )
    status = await wait_status(server, "slow", "failed")
    assert "timed out after 1 seconds" in status["toolsError"]
    hung = int(pid_file.read_text())
    # EOF while the silent server is being stopped: the daemon used to wait on it forever.
    assert await server.close(check=False) == 0, "the daemon did not exit by itself at stdin EOF"
    await wait_gone(hung)


async def test_a_crashing_server_fails_its_call_the_turn_goes_on_and_it_restarts(
    start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    log = tmp_path / "calls.log"
    server = await start_server(*stdio_server("fx", "--log", str(log)))
    await wait_status(server, "fx", "connected")
    fake_model.add(
        script.reply(script.function_call("mcp__fx__crash", {}, "call_c")),
        script.text_reply("The server crashed; carrying on."),
        script.reply(script.function_call("mcp__fx__lookup", {"key": "k"}, "call_k")),
        script.text_reply("back"),
    )
    thread_id = await _thread(server, workdir)
    mark, turn = await run_turn(server, thread_id, "crash it")
    assert turn["status"] == "completed"
    (item,) = items_of(server, mark, "item/completed", "mcpToolCall")
    assert item["status"] == "failed" and item["error"]["message"]
    assert "MCP tool call failed" in _output(fake_model, "call_c")
    await server.notification(
        "mcpServer/startupStatus/updated", after=mark, where=lambda p: p["status"] == "failed"
    )
    await wait_status(server, "fx", "connected", after=mark)
    mark, turn = await run_turn(server, thread_id, "again")
    (item,) = items_of(server, mark, "item/completed", "mcpToolCall")
    assert item["status"] == "completed"
    assert log.read_text() == "crash\nlookup k\n"
