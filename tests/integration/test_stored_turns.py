"""`thread/resume` and `thread/read` send stored turns without validating them again: what they send
must be exactly what validating and dumping them would give, for every kind of item and turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tests.support.rpcclient import RpcClient
from tether_protocol.v2.turn import Turn
from tether_server.processor.views import turn_view
from tether_server.store.sqlite import SqliteThreadStore
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

PATCH = "*** Begin Patch\n*** Add File: notes.txt\n+one line\n*** End Patch\n"


async def _turn(server: RpcClient, thread_id: str, text: str) -> str:
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": text}]})
    done = await server.notification("turn/completed", after=mark)
    return str(done["params"]["turn"]["status"])


def _validated(turn: dict[str, Any]) -> dict[str, Any]:
    return Turn.model_validate(turn).model_dump(mode="json", by_alias=True)


async def _through_validation(home: Path, thread_id: str) -> list[dict[str, Any]]:
    """The turns as the validating path builds them (`turn_view` over the stored records)."""
    store = SqliteThreadStore(home / "tether.sqlite")
    await store.open()
    try:
        turns = await store.list_turns(thread_id, cursor=None, limit=1000, direction="asc")
        items = await store.list_items(thread_id, turn_id=None, cursor=None, limit=1000, direction="asc")
    finally:
        await store.close()
    by_turn: dict[str, list[dict[str, Any]]] = {}
    for item in items.data:
        by_turn.setdefault(item.turn_id, []).append(item.item)
    views = [turn_view(t, by_turn.get(t.turn_id, []), "full") for t in turns.data]
    return [v.model_dump(mode="json", by_alias=True) for v in views]


async def test_stored_turns_are_sent_exactly_as_their_validated_form(
    tmp_path: Path, start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(script.reasoning(["weighing it"]), script.message("plain answer")),
        script.reply(script.function_call("exec_command", {"cmd": "echo hi"}, "call_cmd")),
        script.text_reply("ran it"),
        script.reply(script.custom_tool_call("apply_patch", PATCH, "call_patch")),
        script.text_reply("patched"),
        script.reply(script.web_search_call("tether docs"), script.message("searched")),
        script.failed("server_error", "the model fell over"),
    )
    home = tmp_path / "home"
    server = await start_app("-c", 'sandbox_mode="danger-full-access"', home=home)
    thread_id = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    statuses = [
        await _turn(server, thread_id, text) for text in ("plain", "command", "patch", "search", "fail")
    ]
    assert statuses == ["completed", "completed", "completed", "completed", "failed"]
    live = await server.request("thread/read", {"threadId": thread_id, "includeTurns": True})
    await server.close()

    again = await start_app(home=home)
    read = await again.request("thread/read", {"threadId": thread_id, "includeTurns": True})
    resumed = await again.request("thread/resume", {"threadId": thread_id})
    await again.close()

    for answer in (live, read, resumed):
        turns = answer["thread"]["turns"]
        kinds = {item["type"] for turn in turns for item in turn["items"]}
        assert {"userMessage", "reasoning", "agentMessage", "commandExecution", "fileChange"} <= kinds
        assert "webSearch" in kinds
        assert turns[-1]["error"] is not None
        assert turns == [_validated(turn) for turn in turns]
    assert read["thread"]["turns"] == resumed["thread"]["turns"] == live["thread"]["turns"]
    assert read["thread"]["turns"] == await _through_validation(home, thread_id)
