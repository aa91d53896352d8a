"""Compaction: manual (thread/compact/start) and automatic when the context fills up."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tests.support.rpcclient import RpcClient, methods
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


def _texts(body: dict[str, Any]) -> list[str]:
    return [c["text"] for m in body["input"] if m.get("type") == "message" for c in m["content"]]


async def _turn(server: RpcClient, tid: str, text: str) -> None:
    mark = server.mark()
    await server.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": text}]})
    await server.notification("turn/completed", after=mark)


async def test_manual_compaction_replaces_history_with_a_summary_that_survives_a_restart(
    tmp_path: Path, start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.text_reply("answer one"),
        script.text_reply("SUMMARY: user wants X"),
        script.text_reply("after"),
    )
    home = tmp_path / "home"
    server = await start_app(home=home)
    tid = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    await _turn(server, tid, "please do X")
    mark = server.mark()
    assert await server.request("thread/compact/start", {"threadId": tid}) == {}
    await server.notification("turn/completed", after=mark)
    seq = methods(server.since(mark))
    assert seq[:4] == ["<result>", "thread/status/changed", "turn/started", "item/started"]
    completed = [m["params"]["item"] for m in server.since(mark) if m.get("method") == "item/completed"]
    assert [i["type"] for i in completed] == ["contextCompaction"]
    summary_request = fake_model.requests[1].body
    assert summary_request["tools"] == []
    assert "handoff" in _texts(summary_request)[-1]
    await server.close()

    again = await start_app(home=home)
    await again.request("thread/resume", {"threadId": tid, "excludeTurns": True})
    await _turn(again, tid, "continue")
    texts = _texts(fake_model.requests[2].body)
    assert any("SUMMARY: user wants X" in t for t in texts)
    assert "answer one" not in " ".join(texts)  # the assistant's old reply was replaced by the summary
    assert "please do X" in texts and texts[-1] == "continue"


async def test_a_full_context_is_compacted_automatically_before_the_next_request(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.text_reply("big", usage=script.usage(950, 50)),
        script.text_reply("auto summary"),
        script.text_reply("fine"),
    )
    server = await start_app("-c", "model_context_window=1000")
    tid = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    await _turn(server, tid, "first")
    mark = server.mark()
    await _turn(server, tid, "second")
    types = [m["params"]["item"]["type"] for m in server.since(mark) if m.get("method") == "item/completed"]
    assert types[0] == "contextCompaction"
    assert any("auto summary" in t for t in _texts(fake_model.requests[2].body))
    assert any(m.get("method") == "warning" for m in server.since(mark))
