"""Threads outlive turns, clients and the daemon: list, read, page, fork, revert, archive, delete."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import StartApp, StartServer
from tests.support.rpcclient import RpcClient, RpcErrorReply
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


async def _thread(server: RpcClient, workdir: Path) -> str:
    return str((await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"])


async def _turn(server: RpcClient, thread_id: str, text: str) -> dict[str, Any]:
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": text}]})
    done = await server.notification("turn/completed", after=mark)
    turn: dict[str, Any] = done["params"]["turn"]
    return turn


def _user_texts(body: dict[str, Any]) -> list[str]:
    return [
        c["text"]
        for m in body["input"]
        if m.get("role") == "user"
        for c in m["content"]
        if not c["text"].startswith(("<environment_context>", "# AGENTS.md", "<turn_aborted>"))
    ]


async def test_only_threads_with_a_user_message_are_listed_and_paging_has_no_gaps_or_duplicates(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(*(script.text_reply(f"r{i}") for i in range(5)))
    server = await start_app()
    await _thread(server, workdir)  # never materialized
    ids = []
    for i in range(5):
        tid = await _thread(server, workdir)
        await _turn(server, tid, f"question {i}")
        ids.append(tid)
    for direction, expected in (("desc", ids[::-1]), ("asc", ids)):
        seen: list[str] = []
        cursor = None
        while True:
            page = await server.request(
                "thread/list", {"limit": 2, "cursor": cursor, "sortDirection": direction}
            )
            seen += [t["id"] for t in page["data"]]
            cursor = page["nextCursor"]
            if cursor is None:
                break
        assert seen == expected
    assert len((await server.request("thread/list", {"sourceKinds": ["vscode"]}))["data"]) == 5
    assert (await server.request("thread/list", {"sourceKinds": ["exec"]}))["data"] == []
    assert (await server.request("thread/list", {"modelProviders": ["other"]}))["data"] == []
    assert len((await server.request("thread/list", {"cwd": str(workdir)}))["data"]) == 5
    found = await server.request("thread/list", {"searchTerm": "question 3"})
    assert [t["id"] for t in found["data"]] == [ids[3]]
    assert found["data"][0]["preview"] == "question 3"
    bad = await server.call("thread/list", {"cursor": "garbage"})
    assert bad["error"] == {"code": -32600, "message": "invalid cursor: garbage"}


async def test_read_turns_and_items_reflect_what_happened(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("first answer"), script.text_reply("second answer"))
    server = await start_app()
    tid = await _thread(server, workdir)
    first = await _turn(server, tid, "one")
    second = await _turn(server, tid, "two")
    read = await server.request("thread/read", {"threadId": tid, "includeTurns": True})
    assert [t["id"] for t in read["thread"]["turns"]] == [first["id"], second["id"]]
    assert read["thread"]["preview"] == "one"
    turns = await server.request("thread/turns/list", {"threadId": tid})
    assert [t["id"] for t in turns["data"]] == [second["id"], first["id"]]  # newest first
    assert [i["type"] for i in turns["data"][0]["items"]] == ["userMessage", "agentMessage"]
    items = await server.request("thread/items/list", {"threadId": tid, "limit": 3})
    assert [e["item"]["type"] for e in items["data"]] == ["userMessage", "agentMessage", "userMessage"]
    rest = await server.request("thread/items/list", {"threadId": tid, "cursor": items["nextCursor"]})
    assert [e["item"]["text"] for e in rest["data"]] == ["second answer"]
    assert rest["nextCursor"] is None


async def test_names_archive_unarchive_and_delete(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("hi"))
    server = await start_app()
    tid = await _thread(server, workdir)
    await _turn(server, tid, "hello")
    mark = server.mark()
    await server.request("thread/name/set", {"threadId": tid, "name": "My thread"})
    updated = await server.notification("thread/name/updated", after=mark)
    assert updated["params"] == {"threadId": tid, "threadName": "My thread"}
    empty = await server.call("thread/name/set", {"threadId": tid, "name": "  "})
    assert empty["error"]["message"] == "thread name must not be empty"

    await server.request("thread/archive", {"threadId": tid})
    await server.notification("thread/archived", after=mark)
    assert (await server.request("thread/list", {}))["data"] == []
    archived = await server.request("thread/list", {"archived": True})
    assert [t["name"] for t in archived["data"]] == ["My thread"]
    refused = await server.call("thread/resume", {"threadId": tid})
    assert "is archived" in refused["error"]["message"]
    await server.request("thread/unarchive", {"threadId": tid})
    await server.notification("thread/unarchived", after=mark)
    assert [t["id"] for t in (await server.request("thread/list", {}))["data"]] == [tid]

    await server.request("thread/delete", {"threadId": tid})
    await server.notification("thread/deleted", after=mark)
    gone = await server.call("thread/read", {"threadId": tid})
    assert gone["error"] == {"code": -32600, "message": f"thread not loaded: {tid}"}


async def test_fork_keeps_history_up_to_the_chosen_turn(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("a1"), script.text_reply("a2"), script.text_reply("fork answer"))
    server = await start_app()
    tid = await _thread(server, workdir)
    first = await _turn(server, tid, "one")
    await _turn(server, tid, "two")
    forked = await server.request("thread/fork", {"threadId": tid, "lastTurnId": first["id"]})
    fork_id = forked["thread"]["id"]
    assert fork_id != tid and forked["thread"]["forkedFromId"] == tid
    await _turn(server, fork_id, "three")
    assert _user_texts(fake_model.requests[-1].body) == ["one", "three"]


async def test_revert_drops_the_turn_and_everything_after_it(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(*(script.text_reply(f"a{i}") for i in range(4)))
    server = await start_app()
    tid = await _thread(server, workdir)
    await _turn(server, tid, "one")
    second = await _turn(server, tid, "two")
    await _turn(server, tid, "three")
    mark = server.mark()
    await server.request("thread/revert", {"threadId": tid, "beforeTurnId": second["id"]})
    await server.notification("thread/reverted", after=mark)
    turns = await server.request("thread/turns/list", {"threadId": tid, "sortDirection": "asc"})
    assert len(turns["data"]) == 1
    await _turn(server, tid, "four")
    assert _user_texts(fake_model.requests[-1].body) == ["one", "four"]


async def test_a_resumed_thread_in_a_new_daemon_sends_the_model_the_same_history(
    tmp_path: Path, start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("first"), script.text_reply("second"))
    home = tmp_path / "home"
    server = await start_app(home=home)
    tid = await _thread(server, workdir)
    await _turn(server, tid, "remember 42")
    assert await server.close() == 0

    again = await start_app(home=home)
    resumed = await again.request("thread/resume", {"threadId": tid})
    assert resumed["thread"]["id"] == tid and len(resumed["thread"]["turns"]) == 1
    await _turn(again, tid, "what number?")
    before, after = fake_model.requests[0].body["input"], fake_model.requests[1].body["input"]
    assert after[: len(before)] == before
    assert _user_texts(fake_model.requests[1].body) == ["remember 42", "what number?"]


async def test_a_daemon_killed_mid_turn_closes_the_turn_as_interrupted_on_restart(
    tmp_path: Path, start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    cmd = {"cmd": "echo started; exec sleep 600", "yield_time_ms": 30000}
    fake_model.add(
        script.text_reply("done once"), script.reply(script.function_call("exec_command", cmd, "c1"))
    )
    home = tmp_path / "home"
    server = await start_server("-c", 'sandbox_mode="danger-full-access"', home=home)
    tid = await _thread(server, workdir)
    completed = await _turn(server, tid, "first")
    mark = server.mark()
    await server.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "second"}]})
    await server.notification("item/commandExecution/outputDelta", after=mark)
    server.kill()
    await server.close(check=False)

    fake_model.add(script.text_reply("after the crash"))
    again = await start_server(home=home)
    mark = again.mark()
    await again.request("thread/resume", {"threadId": tid, "excludeTurns": True})
    closed = await again.notification("turn/completed", after=mark)
    assert closed["params"]["turn"]["status"] == "interrupted"
    turns = await again.request("thread/turns/list", {"threadId": tid, "sortDirection": "asc"})
    assert [t["status"] for t in turns["data"]] == ["completed", "interrupted"]
    assert turns["data"][0]["id"] == completed["id"]
    await _turn(again, tid, "third")
    body = fake_model.requests[-1].body["input"]
    calls = [i["call_id"] for i in body if i["type"] == "function_call"]
    outputs = [i["call_id"] for i in body if i["type"] == "function_call_output"]
    assert sorted(calls) == sorted(outputs)  # an unanswered call would make the model reject the request
    texts = [c.get("text", "") for i in body for c in i.get("content") or []]
    assert any("<turn_aborted>" in t for t in texts)  # the model is told the turn was cut short


async def test_an_unsubscribed_idle_thread_unloads_after_the_delay(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await start_app("-c", "thread_unload_delay_secs=0")
    tid = await _thread(server, workdir)
    mark = server.mark()
    assert await server.request("thread/unsubscribe", {"threadId": tid}) == {"status": "unsubscribed"}
    closed = await server.notification("thread/closed", after=mark)
    assert closed["params"] == {"threadId": tid}
    assert (await server.request("thread/loaded/list", {}))["data"] == []
    assert await server.request("thread/unsubscribe", {"threadId": tid}) == {"status": "notLoaded"}


async def test_turns_list_before_the_first_turn_is_refused(start_app: StartApp, workdir: Path) -> None:
    server = await start_app()
    tid = await _thread(server, workdir)
    reply = await server.call("thread/turns/list", {"threadId": tid})
    assert "not materialized yet" in reply["error"]["message"]
    try:
        await server.request("thread/read", {"threadId": "missing"})
    except RpcErrorReply as err:
        assert err.message == "thread not loaded: missing"
