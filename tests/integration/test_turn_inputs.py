"""What a turn sends the model and streams back: reasoning, structured output, images, parallel calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tests.support.rpcclient import RpcClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


async def _thread(server: RpcClient, workdir: Path) -> str:
    result = await server.request("thread/start", {"cwd": str(workdir), "sandbox": "danger-full-access"})
    return str(result["thread"]["id"])


async def _turn(server: RpcClient, tid: str, inputs: list[dict[str, Any]], **extra: Any) -> int:
    mark = server.mark()
    await server.request("turn/start", {"threadId": tid, "input": inputs, **extra})
    await server.notification("turn/completed", after=mark)
    return mark


async def test_reasoning_streams_as_an_item_and_goes_back_to_the_model_encrypted(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    thinking = script.reasoning(summary=["Looking at the files"], encrypted_content="enc-blob-1")
    fake_model.add(script.reply(thinking, script.message("Done.")), script.text_reply("again"))
    server = await start_app()
    tid = await _thread(server, workdir)
    mark = await _turn(server, tid, [{"type": "text", "text": "think"}])
    msgs = server.since(mark)
    reasoning = next(
        m["params"]["item"]
        for m in msgs
        if m.get("method") == "item/completed" and m["params"]["item"]["type"] == "reasoning"
    )
    assert reasoning["summary"] == ["Looking at the files"]
    deltas = [m["params"]["delta"] for m in msgs if m.get("method") == "item/reasoning/summaryTextDelta"]
    assert "".join(deltas) == "Looking at the files"
    await _turn(server, tid, [{"type": "text", "text": "next"}])
    sent = [i for i in fake_model.requests[1].body["input"] if i["type"] == "reasoning"]
    assert sent and sent[0]["encrypted_content"] == "enc-blob-1"


async def test_an_output_schema_is_sent_as_structured_output(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    schema = {
        "type": "object",
        "properties": {"ok": {"type": "boolean"}},
        "required": ["ok"],
        "additionalProperties": False,
    }
    fake_model.add(script.text_reply(json.dumps({"ok": True})))
    server = await start_app()
    tid = await _thread(server, workdir)
    await _turn(server, tid, [{"type": "text", "text": "answer in json"}], outputSchema=schema)
    fmt = fake_model.requests[0].body["text"]["format"]
    assert fmt["type"] == "json_schema" and fmt["schema"] == schema and fmt["strict"] is True


async def test_inline_images_reach_the_model_and_remote_image_urls_are_refused(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("a cat"))
    server = await start_app()
    tid = await _thread(server, workdir)
    remote = await server.call(
        "turn/start", {"threadId": tid, "input": [{"type": "image", "url": "https://example.com/cat.png"}]}
    )
    assert remote["error"] == {
        "code": -32600,
        "message": "remote image URLs are not supported; use an inline data URL instead",
    }
    data_url = "data:image/png;base64,iVBORw0KGgo="
    await _turn(server, tid, [{"type": "text", "text": "what is it?"}, {"type": "image", "url": data_url}])
    content = fake_model.requests[0].body["input"][-1]["content"]
    assert {"type": "input_image", "image_url": data_url, "detail": "high"} in content


async def test_parallel_calls_run_together_and_outputs_follow_call_order(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(
            script.function_call("exec_command", {"cmd": "echo first"}, "c1"),
            script.function_call("exec_command", {"cmd": "echo second"}, "c2"),
        ),
        script.text_reply("both ran"),
    )
    server = await start_app()
    tid = await _thread(server, workdir)
    await _turn(server, tid, [{"type": "text", "text": "run both"}])
    assert fake_model.requests[0].body["parallel_tool_calls"] is True
    second = fake_model.requests[1].body["input"]
    kinds = [(i["type"], i.get("call_id")) for i in second if i.get("call_id")]
    assert kinds == [
        ("function_call", "c1"),
        ("function_call", "c2"),
        ("function_call_output", "c1"),
        ("function_call_output", "c2"),
    ]
