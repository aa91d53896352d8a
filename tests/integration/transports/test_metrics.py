"""`/metrics` on the WebSocket listener: off by default, behind the listener's token, counting real work."""

from __future__ import annotations

import asyncio
import base64
import os
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from tests.integration.tools_ext.mcp_support import stdio_server, wait_status
from tests.integration.transports.conftest import StartSocketServer
from tests.support.appserver import mock_provider_args
from tests.support.wsclient import SocketServer
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def _http_url(server: SocketServer, path: str) -> str:
    return server.ws_url.replace("ws://", "http://", 1) + path


async def _scrape(server: SocketServer, token: str | None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    async with httpx.AsyncClient() as http:
        return await http.get(_http_url(server, "/metrics"), headers=headers)


async def _samples(server: SocketServer) -> Samples:
    response = await _scrape(server, server.token())
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    found: Samples = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            found[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return found


def _value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


async def test_metrics_are_behind_the_listeners_token(socket_server: StartSocketServer) -> None:
    server = await socket_server("--listen", "ws://127.0.0.1:0", "--metrics")

    assert (await _scrape(server, None)).status_code == 401
    refused = await _scrape(server, "guess")
    assert (refused.status_code, refused.text) == (401, "invalid websocket bearer token")
    assert "tether_" not in refused.text
    assert (await _scrape(server, server.token())).status_code == 200


async def test_metrics_are_not_served_unless_asked_for(socket_server: StartSocketServer) -> None:
    server = await socket_server("--listen", "ws://127.0.0.1:0")

    response = await _scrape(server, server.token())
    assert response.status_code == 400
    assert "tether_" not in response.text


async def test_a_request_and_a_turn_with_a_tool_call_move_the_counters(
    socket_server: StartSocketServer, fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", {"cmd": "echo hi"}, "call_1")),
        script.text_reply("done"),
    )
    server = await socket_server("--listen", "ws://127.0.0.1:0", "-c", "tether.metrics=true")
    before = await _samples(server)
    assert _value(before, "tether_turns_total", status="completed") == 0

    client = await server.connect_ws()
    await client.initialize()
    started = await client.request("thread/start", {"cwd": str(tmp_path), "sandbox": "danger-full-access"})
    thread_id = started["thread"]["id"]
    mark = client.mark()
    await client.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "go"}]})
    done = await client.notification("turn/completed", after=mark)
    assert done["params"]["turn"]["status"] == "completed"
    unknown = await client.call("no/such/method", {})
    assert unknown["error"]["code"] == -32601

    after = await _samples(server)
    assert _value(after, "tether_connections", transport="ws") == 1
    assert _value(after, "tether_rpc_requests_total", method="thread/start", outcome="ok") == 1
    assert _value(after, "tether_rpc_requests_total", method="turn/start", outcome="ok") == 1
    assert _value(after, "tether_rpc_requests_total", method="unknown", outcome="-32601") == 1
    assert _value(after, "tether_rpc_request_duration_seconds_count", method="thread/start") == 1
    assert _value(after, "tether_turns_total", status="completed") == 1
    assert _value(after, "tether_turns_running") == 0
    assert _value(after, "tether_model_requests_total", model="gpt-test", outcome="ok") == 2
    assert _value(after, "tether_model_request_duration_seconds_count", model="gpt-test") == 2
    assert _value(after, "tether_model_tokens_total", model="gpt-test", kind="output") > 0
    assert _value(after, "tether_tool_calls_total", tool="exec_command", outcome="ok") == 1
    assert _value(after, "tether_tool_call_duration_seconds_count", tool="exec_command") == 1
    assert _value(after, "tether_store_commit_duration_seconds_count") > _value(
        before, "tether_store_commit_duration_seconds_count"
    )
    assert ("tether_queue_depth", frozenset({("queue", "outbox")})) in after
    assert _value(after, "tether_asyncio_tasks") > 0
    await client.close()


async def test_requests_refused_with_32001_are_counted_by_scope(
    socket_server: StartSocketServer, tmp_path: Path
) -> None:
    server = await socket_server(
        "--listen", "ws://127.0.0.1:0", "--metrics", "--max-inflight-per-connection", "1"
    )
    client = await server.connect_ws()
    await client.initialize()
    fifo = tmp_path / "gate"
    os.mkfifo(fifo)
    command = {
        "command": ["head", "-c1", str(fifo)],
        "processId": "stuck",
        "streamStdin": True,
        "sandboxPolicy": {"type": "dangerFullAccess"},
    }
    exited = asyncio.create_task(client.request("command/exec", command))
    # Opening the FIFO for writing returns once `head` has opened it: the process runs.
    gate = await asyncio.to_thread(os.open, fifo, os.O_WRONLY)
    # More than a pipe holds, to a process that does not read: the write stays in flight.
    stuck_write = {"processId": "stuck", "deltaBase64": base64.b64encode(b"x" * (1 << 20)).decode()}
    stuck = asyncio.create_task(client.call("command/exec/write", stuck_write))
    # A task, so that it is sent after the write (tasks start in the order they were created).
    refused = await asyncio.create_task(client.call("thread/loaded/list", {}))
    assert refused["error"]["code"] == -32001
    during = await _samples(server)
    assert _value(during, "tether_rpc_overloaded_total", scope="connection") == 1
    assert _value(during, "tether_queue_depth", queue="inflight") == 1

    os.close(gate)  # `head` reads end of input and exits; the stuck write is answered
    await stuck
    assert (await exited)["exitCode"] == 0
    assert _value(await _samples(server), "tether_queue_depth", queue="inflight") == 0
    await client.close()


async def test_a_command_refused_because_the_sandbox_is_unavailable_is_counted(
    fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", {"cmd": "echo hi"}, "call_1")),
        script.text_reply("done"),
    )
    # No bwrap on PATH: the start-up probe fails, and sandboxed commands are refused (fail closed).
    args = [*mock_provider_args(fake_model.base_url), "--listen", "ws://127.0.0.1:0", "--metrics"]
    server = await SocketServer.start(tmp_path / "home", args, env={"PATH": str(tmp_path / "empty")})
    try:
        client = await server.connect_ws()
        await client.initialize()
        started = await client.request("thread/start", {"cwd": str(tmp_path), "sandbox": "read-only"})
        mark = client.mark()
        text = [{"type": "text", "text": "go"}]
        await client.request("turn/start", {"threadId": started["thread"]["id"], "input": text})
        await client.notification("turn/completed", after=mark)
        samples = await _samples(server)
        assert _value(samples, "tether_sandbox_refusals_total") == 1
        assert _value(samples, "tether_tool_calls_total", tool="exec_command", outcome="failed") == 1
        await client.close()
    finally:
        await server.stop()


async def test_tool_names_the_model_made_up_are_counted_as_other(
    socket_server: StartSocketServer, fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    """The attack: a model calls hundreds of made-up tool names; each used to become a label
    value, a series (count, sum, 14 buckets) kept for the daemon's life."""
    made_up = [script.function_call(f"tool_{i:03d}", {}, f"call_{i:03d}") for i in range(300)]
    fake_model.add(
        script.reply(
            script.function_call("exec_command", {"cmd": "echo hi"}, "call_exec"),
            script.function_call("mcp__fx__lookup", {"key": "k"}, "call_mcp"),
            script.function_call("mcp__fx__not_a_tool", {}, "call_gone"),
            *made_up,
        ),
        script.text_reply("done"),
    )
    server = await socket_server("--listen", "ws://127.0.0.1:0", "--metrics", *stdio_server("fx"))
    client = await server.connect_ws()
    await client.initialize()
    await wait_status(client, "fx", "connected")
    started = await client.request("thread/start", {"cwd": str(tmp_path), "sandbox": "danger-full-access"})
    mark = client.mark()
    params = {"threadId": started["thread"]["id"], "input": [{"type": "text", "text": "go"}]}
    await client.request("turn/start", params)
    await client.notification("turn/completed", after=mark, within_s=60)

    samples = await _samples(server)
    labels = {dict(labels)["tool"] for (name, labels) in samples if name == "tether_tool_calls_total"}
    assert labels == {"exec_command", "mcp__fx__lookup", "other"}
    assert _value(samples, "tether_tool_calls_total", tool="other", outcome="failed") == 301
    assert _value(samples, "tether_tool_calls_total", tool="mcp__fx__lookup", outcome="ok") == 1
    assert _value(samples, "tether_tool_call_duration_seconds_count", tool="other") == 301
    await client.close()
