"""Queued follow-up messages (`thread/queue/*`, experimental) as Codex 0.169.0 runs them (observed
on the real binary against the fake model): a message queued on an idle thread with nothing
queued starts at once; the others wait and start one by one as each turn completes; an
interrupted turn leaves the queue waiting for `thread/queue/start`; the queue outlives a restart
(starting needs the thread resumed); `thread/queue/changed` tells the thread's subscribers of every
change; Codex's errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import StartApp, StartServer
from tests.integration.desktop_surface.helpers import UNKNOWN_ID, refused, thread
from tests.support.rpcclient import RpcClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


def _queued(qid: str, text: str, client_id: str, metadata: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "id": qid,
        "input": [{"type": "text", "text": text, "text_elements": []}],
        "clientUserMessageId": client_id,
        "responsesapiClientMetadata": metadata,
    }


async def _add(server: RpcClient, tid: str, text: str, client_id: str, **extra: Any) -> str:
    params = {"threadId": tid, "clientUserMessageId": client_id, "input": _text(text), **extra}
    added = await server.request("thread/queue/add", params)
    return str(added["queuedSubmission"]["id"])


async def _listed(server: RpcClient, tid: str) -> list[str]:
    page = await server.request("thread/queue/list", {"threadId": tid})
    return [q["input"][0]["text"] for q in page["data"]]


def _user_texts(server: RpcClient, mark: int) -> list[tuple[str, str | None]]:
    """(text, clientId) of every user message item started since `mark`, in order."""
    return [
        (m["params"]["item"]["content"][0]["text"], m["params"]["item"]["clientId"])
        for m in server.since(mark)
        if m.get("method") == "item/started" and m["params"]["item"]["type"] == "userMessage"
    ]


async def _completions(server: RpcClient, mark: int, count: int) -> None:
    """Wait until `count` turns completed since `mark`."""
    seen = 0

    def counted(m: dict[str, Any]) -> bool:
        nonlocal seen
        seen += m.get("method") == "turn/completed"
        return seen >= count

    await server.wait_for(counted, after=mark)


async def test_queued_messages_start_one_after_another_as_turns_complete(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.reply(script.gated("g1"), script.message("one")))
    fake_model.add(script.text_reply("two"), script.text_reply("three"))
    server = await start_app(initialize=False)
    await server.initialize(experimental=True)
    tid = await thread(server, workdir)
    assert await server.request("thread/queue/list", {"threadId": tid}) == {"data": [], "nextCursor": None}

    mark = server.mark()
    first = await _add(server, tid, "first", "c1")  # idle and nothing queued: starts at once
    await fake_model.wait_for_gate("g1")
    second = await _add(server, tid, "second", "c2", responsesapiClientMetadata={"k": "v"})
    third = await _add(server, tid, "third", "c3")
    assert first not in (second, third)
    listed = await server.request("thread/queue/list", {"threadId": tid})
    assert listed == {
        "data": [_queued(second, "second", "c2", {"k": "v"}), _queued(third, "third", "c3")],
        "nextCursor": None,
    }
    assert await refused(server, "thread/queue/start", {"threadId": tid}) == (
        -32600,
        "thread already has an active or pending turn",
    )
    # The one turn running, then each queued message in its own turn, in queue order.
    fake_model.release("g1")
    await _completions(server, mark, 3)
    assert _user_texts(server, mark) == [("first", "c1"), ("second", "c2"), ("third", "c3")]
    statuses = [
        m["params"]["turn"]["status"] for m in server.since(mark) if m.get("method") == "turn/completed"
    ]
    assert statuses == ["completed"] * 3
    assert await _listed(server, tid) == []
    changed = [m for m in server.since(mark) if m.get("method") == "thread/queue/changed"]
    assert len(changed) == 6 and {m["params"]["threadId"] for m in changed} == {tid}  # 3 adds, 3 starts
    assert await refused(server, "thread/queue/start", {"threadId": tid}) == (-32600, "queue is empty")


async def test_editing_the_queue_and_starting_a_chosen_message_after_an_interrupt(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.reply(script.gated("g1"), script.message("one")))
    fake_model.add(script.text_reply("picked"), script.text_reply("rest"))
    server = await start_app(initialize=False)
    await server.initialize(experimental=True)
    tid = await thread(server, workdir)
    await _add(server, tid, "first", "c1")
    await fake_model.wait_for_gate("g1")
    a = await _add(server, tid, "a", "ca", responsesapiClientMetadata={"k": "v"})
    b = await _add(server, tid, "b", "cb")
    c = await _add(server, tid, "c", "cc")

    # Update: the input is replaced; empty or omitted metadata keeps it, a non-empty map replaces it.
    params = {"threadId": tid, "queuedSubmissionId": a, "input": _text("a2")}
    assert (await server.request("thread/queue/update", params))["queuedSubmission"] == _queued(
        a, "a2", "ca", {"k": "v"}
    )
    kept = await server.request("thread/queue/update", {**params, "responsesapiClientMetadata": {}})
    assert kept["queuedSubmission"]["responsesapiClientMetadata"] == {"k": "v"}
    new = await server.request("thread/queue/update", {**params, "responsesapiClientMetadata": {"z": "1"}})
    assert new["queuedSubmission"]["responsesapiClientMetadata"] == {"z": "1"}

    bad_order = "queue reorder must include every queued submission exactly once"
    for ids in ([c, b], [c, b, b], [c, b, "nope"], []):
        assert await refused(
            server, "thread/queue/reorder", {"threadId": tid, "queuedSubmissionIds": ids}
        ) == (
            -32600,
            bad_order,
        )
    assert (
        await server.request("thread/queue/reorder", {"threadId": tid, "queuedSubmissionIds": [c, a, b]})
        == {}
    )
    assert await _listed(server, tid) == ["c", "a2", "b"]
    assert await server.request("thread/queue/delete", {"threadId": tid, "queuedSubmissionId": c}) == {
        "deleted": True
    }
    assert await server.request("thread/queue/delete", {"threadId": tid, "queuedSubmissionId": c}) == {
        "deleted": False
    }
    page = await server.request("thread/queue/list", {"threadId": tid, "limit": 1})
    assert [q["id"] for q in page["data"]] == [a] and page["nextCursor"] == "1"
    rest = await server.request("thread/queue/list", {"threadId": tid, "cursor": "1"})
    assert [q["id"] for q in rest["data"]] == [b] and rest["nextCursor"] is None

    # An interrupted turn leaves the queue waiting.
    started = [m for m in server.messages if m.get("method") == "turn/started"][-1]["params"]["turn"]["id"]
    mark = server.mark()
    await server.request("turn/interrupt", {"threadId": tid, "turnId": started})
    await server.notification("turn/completed", after=mark)
    fake_model.release("g1")
    assert await _listed(server, tid) == ["a2", "b"]
    assert await refused(server, "thread/queue/start", {"threadId": tid, "queuedSubmissionId": "nope"}) == (
        -32600,
        "queued submission not found: nope",
    )
    # Starting a chosen message answers its turn; the rest then drains as that turn completes.
    mark = server.mark()
    answer = await server.request("thread/queue/start", {"threadId": tid, "queuedSubmissionId": b})
    assert answer["turn"]["status"] == "inProgress" and answer["turn"]["items"] == []
    await _completions(server, mark, 2)
    assert _user_texts(server, mark) == [("b", "cb"), ("a2", "ca")]
    turns = [m["params"]["turn"]["id"] for m in server.since(mark) if m.get("method") == "turn/started"]
    assert turns[0] == answer["turn"]["id"]


async def test_the_queue_outlives_a_restart_and_waits_for_resume_and_start(
    tmp_path: Path, start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.reply(script.gated("g1"), script.message("one")))
    home = tmp_path / "home"
    server = await start_server(home=home, initialize=False)
    await server.initialize(experimental=True)
    tid = await thread(server, workdir)
    await _add(server, tid, "first", "c1")
    await fake_model.wait_for_gate("g1")
    second = await _add(server, tid, "second", "c2", responsesapiClientMetadata={"k": "v"})
    third = await _add(server, tid, "third", "c3")
    await server.close()
    fake_model.release("g1")

    again = await start_server(home=home, initialize=False)
    await again.initialize(experimental=True)
    expected = [_queued(second, "second", "c2", {"k": "v"}), _queued(third, "third", "c3")]
    assert (await again.request("thread/queue/list", {"threadId": tid}))["data"] == expected
    assert await refused(again, "thread/queue/start", {"threadId": tid}) == (
        -32600,
        "resume the thread before starting a queued message",
    )
    # Queued on a thread that is not loaded: it waits, and nobody is told.
    mark = again.mark()
    await _add(again, tid, "fourth", "c4")
    assert [m for m in again.since(mark) if m.get("method") == "thread/queue/changed"] == []
    await again.request("thread/resume", {"threadId": tid})
    # Resumed and idle, the queue still waits: a new message joins its end, and the subscriber hears.
    mark = again.mark()
    await _add(again, tid, "fifth", "c5")
    await again.notification("thread/queue/changed", after=mark)
    assert await _listed(again, tid) == ["second", "third", "fourth", "fifth"]
    fake_model.add(*(script.text_reply(str(n)) for n in range(2, 6)))
    mark = again.mark()
    await again.request("thread/queue/start", {"threadId": tid})
    await _completions(again, mark, 4)
    assert [t for t, _ in _user_texts(again, mark)] == ["second", "third", "fourth", "fifth"]
    assert await _listed(again, tid) == []


async def test_codex_errors_for_queues_change_nothing(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await start_app(initialize=False)
    await server.initialize(experimental=True)
    tid = await thread(server, workdir)
    missing = (
        f"failed to read thread: invalid thread-store request: no rollout found for thread id {UNKNOWN_ID}"
    )
    bad_id = (
        "invalid thread id: invalid character: expected an optional prefix of `urn:uuid:` followed by "
        "[0-9a-fA-F-], found `n` at 1"
    )
    add = {"clientUserMessageId": "c", "input": _text("x")}
    cases: list[tuple[str, dict[str, Any], tuple[int, str]]] = [
        (
            "thread/queue/add",
            {"threadId": tid, "clientUserMessageId": "c", "input": []},
            (-32600, "only user input can be added to the user-message queue"),
        ),
        ("thread/queue/add", {"threadId": UNKNOWN_ID, **add}, (-32603, missing)),
        ("thread/queue/list", {"threadId": UNKNOWN_ID}, (-32603, missing)),
        ("thread/queue/add", {"threadId": "nope", **add}, (-32600, bad_id)),
        (
            "thread/queue/list",
            {"threadId": tid, "cursor": "bogus"},
            (-32600, "invalid queue pagination cursor: invalid digit found in string"),
        ),
        (
            "thread/queue/update",
            {"threadId": tid, "queuedSubmissionId": "nope", "input": _text("x")},
            (-32600, "queued submission not found: nope"),
        ),
        ("thread/queue/start", {"threadId": tid}, (-32600, "queue is empty")),
    ]
    for method, params, answer in cases:
        assert await refused(server, method, params) == answer, method
    assert await server.request("thread/queue/delete", {"threadId": tid, "queuedSubmissionId": "nope"}) == {
        "deleted": False
    }
    assert await _listed(server, tid) == []
    # Without the experimental opt-in the methods are refused.
    plain = await start_app()
    code, message = await refused(plain, "thread/queue/list", {"threadId": tid})
    assert code == -32600 and "experimentalApi" in message
