"""Item ids are the thread's own: a model that numbers its output items from 1 in every response
(local servers, proxies) never makes a later turn's items take over an earlier turn's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tests.support.rpcclient import RpcClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


def _answer(*texts: str) -> dict[str, Any]:
    """A reply that reuses the ids of every other reply: reasoning `rs_1`, messages `msg_1`."""
    messages = [script.message(text, msg_id="msg_1") for text in texts]
    return script.reply(
        script.reasoning([f"thinking {texts[-1]}"], item_id="rs_1"), *messages, response_id="resp_1"
    )


async def _turn(server: RpcClient, thread_id: str, text: str) -> list[dict[str, Any]]:
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": text}]})
    await server.notification("turn/completed", after=mark)
    return server.since(mark)


def _shown(items: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    return [(i["type"], i.get("text") or i.get("summary") or i.get("content")) for i in items]


async def _turns(server: RpcClient, thread_id: str) -> list[dict[str, Any]]:
    read = await server.request("thread/read", {"threadId": thread_id, "includeTurns": True})
    return list(read["thread"]["turns"])


async def test_reused_model_item_ids_never_rewrite_an_earlier_turn(
    tmp_path: Path, start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(_answer("answer one"), _answer("interim", "answer two"))
    home = tmp_path / "home"
    server = await start_app(home=home)
    thread_id = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    first = await _turn(server, thread_id, "one")
    second = await _turn(server, thread_id, "two")

    turns = await _turns(server, thread_id)
    assert [_shown(t["items"]) for t in turns] == [
        [
            ("userMessage", [{"type": "text", "text": "one", "text_elements": []}]),
            ("reasoning", ["thinking answer one"]),
            ("agentMessage", "answer one"),
        ],
        [
            ("userMessage", [{"type": "text", "text": "two", "text_elements": []}]),
            ("reasoning", ["thinking answer two"]),
            ("agentMessage", "interim"),
            ("agentMessage", "answer two"),
        ],
    ]
    # Live: each item has its own id, and its deltas name it.
    for messages in (first, second):
        started = {
            m["params"]["item"]["id"]: m["params"]["item"]["type"]
            for m in messages
            if m.get("method") == "item/started"
        }
        deltas = {m["params"]["itemId"] for m in messages if "itemId" in m.get("params", {})}
        assert deltas and deltas <= set(started)
    live = [m["params"]["item"]["id"] for m in first + second if m.get("method") == "item/completed"]
    assert len(live) == len(set(live)) == 7

    ids = [i["id"] for t in turns for i in t["items"]]
    assert len(ids) == len(set(ids)) == 7
    assert sorted(ids) == sorted(live)
    await server.close()

    again = await start_app(home=home)
    assert await _turns(again, thread_id) == turns
