"""`[otel]`: the daemon exports a span per request, turn, model call and tool call, and its log lines.

The exporter is the real OTLP/HTTP one, sending to a collector on loopback (tests/support/otlp.py).
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from tests.conftest import StartServer
from tests.support.appserver import WAIT_S
from tests.support.otlp import OtlpCollector
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


def _attrs(span: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for attr in span.attributes:
        value = attr.value
        out[attr.key] = getattr(value, value.WhichOneof("value"))
    return out


async def test_a_turn_is_a_span_with_its_model_calls_and_tool_call_as_children(
    start_server: StartServer, fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", {"cmd": "echo hi"}, "call_1")),
        script.text_reply("done"),
    )
    async with OtlpCollector() as collector:
        url = collector.base_url
        server = await start_server(
            "-c",
            'otel.environment="ci"',
            "-c",
            f'otel.trace_exporter={{otlp-http={{endpoint="{url}/v1/traces"}}}}',
            "-c",
            f'otel.exporter={{otlp-http={{endpoint="{url}/v1/logs"}}}}',
        )
        started = await server.request(
            "thread/start", {"cwd": str(tmp_path), "sandbox": "danger-full-access"}
        )
        mark = server.mark()
        params = {"threadId": started["thread"]["id"], "input": [{"type": "text", "text": "go"}]}
        await server.request("turn/start", params)
        await server.notification("turn/completed", after=mark)
        # Exit flushes the exporters: every span is at the collector once the daemon is gone.
        assert await server.close() == 0

    spans = collector.spans()
    by_name: dict[str, list[Any]] = {}
    for span in spans:
        by_name.setdefault(span.name, []).append(span)
    (request,) = by_name["turn/start"]
    assert _attrs(request)["rpc.method"] == "turn/start"
    (turn,) = by_name["turn"]
    assert turn.parent_span_id == request.span_id
    assert turn.trace_id == request.trace_id
    assert _attrs(turn)["tether.turn.status"] == "completed"
    models = by_name["model.request"]
    assert len(models) == 2
    assert all(m.parent_span_id == turn.span_id for m in models)
    assert all(_attrs(m)["gen_ai.request.model"] == "gpt-test" for m in models)
    (tool,) = by_name["tool.call"]
    assert tool.parent_span_id == turn.span_id
    assert _attrs(tool)["gen_ai.tool.name"] == "exec_command"
    assert {"thread/start", "initialize"} <= set(by_name)
    assert all(r["service.name"] == "tether-app-server" for r in collector.resources())
    assert all(r["deployment.environment"] == "ci" for r in collector.resources())

    bodies = [record.body.string_value for record in collector.log_records()]
    assert "connection.opened" in bodies


async def test_an_otel_table_without_an_exporter_exports_nothing(
    start_server: StartServer, fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    fake_model.add(script.text_reply("done"))
    async with OtlpCollector() as collector:
        server = await start_server("-c", 'otel.environment="ci"')
        await server.request("thread/start", {"cwd": str(tmp_path)})
        assert await server.close() == 0
    assert collector.bodies == {}


async def test_an_exporter_that_is_not_installed_stops_the_daemon_with_the_fix(tmp_path: Path) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tether_server",
        "app-server",
        "-c",
        'otel.trace_exporter="otlp-grpc"',
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "TETHER_HOME": str(tmp_path / "home")},
    )
    async with asyncio.timeout(WAIT_S):
        _, stderr = await proc.communicate()
    assert proc.returncode == 2
    assert "pip install 'tether[otel]'" in stderr.decode()


async def test_codex_exporter_settings_tether_does_not_apply_are_named_at_start(
    start_server: StartServer, tmp_path: Path
) -> None:
    async with OtlpCollector() as collector:
        endpoint = f"{collector.base_url}/v1/traces"
        table = f'{{otlp-http={{endpoint="{endpoint}", protocol="json", tls={{ca-certificate="ca.pem"}}}}}}'
        server = await start_server("-c", f"otel.trace_exporter={table}")
        await server.request("thread/start", {"cwd": str(tmp_path)})
        assert await server.close() == 0
    log = server.stderr()
    assert "otel.protocol_ignored" in log
    assert "otel.tls_ignored" in log
    assert collector.spans()  # the spans were still exported, as protobuf
