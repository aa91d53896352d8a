"""Spans, in process, into the SDK's in-memory exporter: a request span, and a turn span whose
children are its model calls and its tool call."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from tests.unit.processor.conftest import Connect

from tether_server import telemetry
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    telemetry.configure(environment="test", version="0", span_exporter=exporter)
    try:
        yield exporter
    finally:
        telemetry.shutdown()


async def test_a_turn_span_holds_its_model_calls_and_tool_calls(
    spans: InMemorySpanExporter, connect: Connect, fake_model: FakeResponsesServer, tmp_path: Path
) -> None:
    fake_model.add(
        script.reply(script.function_call("exec_command", {"cmd": "echo hi"}, "call_1")),
        script.text_reply("done"),
    )
    client = await connect()
    started = await client.request("thread/start", {"cwd": str(tmp_path), "sandbox": "danger-full-access"})
    mark = client.mark()
    await client.request(
        "turn/start", {"threadId": started["thread"]["id"], "input": [{"type": "text", "text": "go"}]}
    )
    await client.notification("turn/completed", after=mark)
    refused = await client.call("thread/read", {"threadId": "nope"})
    assert "error" in refused
    telemetry.shutdown()  # flushes the batch processor into the exporter

    finished = spans.get_finished_spans()
    named = {span.name: span for span in finished}
    request, turn = named["turn/start"], named["turn"]
    assert turn.parent is not None and turn.parent.span_id == request.context.span_id
    children = [s for s in finished if s.parent is not None and s.parent.span_id == turn.context.span_id]
    assert sorted(s.name for s in children) == ["model.request", "model.request", "tool.call"]
    tool = next(s for s in children if s.name == "tool.call")
    assert tool.attributes is not None and tool.attributes["gen_ai.tool.name"] == "exec_command"
    failed = named["thread/read"]
    assert (
        failed.attributes is not None
        and failed.attributes["rpc.jsonrpc.error_code"] == refused["error"]["code"]
    )
