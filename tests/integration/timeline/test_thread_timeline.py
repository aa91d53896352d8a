"""`thread/items/read`, `thread/searchOccurrences`, `thread/timeline/list` and `turn/settings/update`
as Codex 0.169.0 answers them (observed on the binary against the fake model, `experimentalApi`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tests.integration.desktop_surface.helpers import UNKNOWN_ID, refused
from tests.support.rpcclient import RpcClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

NOT_UUID = (
    "invalid thread id: invalid character: expected an optional prefix of `urn:uuid:` followed by "
    "[0-9a-fA-F-], found `n` at 1"
)


async def _client(start_app: StartApp) -> RpcClient:
    server = await start_app(initialize=False)
    await server.initialize(experimental=True)
    return server


async def _turn(server: RpcClient, tid: str, text: str) -> dict[str, Any]:
    mark = server.mark()
    await server.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": text}]})
    done = await server.notification("turn/completed", after=mark)
    return dict(done["params"]["turn"])


async def _two_turns(
    server: RpcClient, fake_model: FakeResponsesServer, workdir: Path
) -> tuple[str, list[str]]:
    fake_model.add(script.text_reply("started"), script.text_reply("Start again? It has started."))
    tid = str((await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"])
    turns = [await _turn(server, tid, "start server"), await _turn(server, tid, "and now?")]
    return tid, [str(t["id"]) for t in turns]


async def _items(server: RpcClient, tid: str, turn_id: str) -> list[dict[str, Any]]:
    listed = await server.request("thread/items/list", {"threadId": tid, "turnId": turn_id})
    return [e["item"] for e in listed["data"]]


async def test_items_read_answers_the_asked_items_of_one_turn(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await _client(start_app)
    tid, (first, second) = await _two_turns(server, fake_model, workdir)
    user, agent = await _items(server, tid, first)
    read = await server.request(
        "thread/items/read", {"threadId": tid, "turnId": first, "itemIds": [agent["id"], "x", user["id"]]}
    )
    assert [(e["turnId"], e["item"]) for e in read["data"]] == [(first, user), (first, agent)]
    # Another turn's id, an unknown turn or unknown items: nothing, as Codex.
    other = await server.request(
        "thread/items/read", {"threadId": tid, "turnId": second, "itemIds": [user["id"]]}
    )
    assert other == {"data": []}
    unknown = await server.request("thread/items/read", {"threadId": tid, "turnId": "nope", "itemIds": ["x"]})
    assert unknown == {"data": []}
    assert await refused(server, "thread/items/read", {"threadId": tid, "turnId": first, "itemIds": []}) == (
        -32600,
        "itemIds must contain 1 to 100 IDs",
    )
    too_many = {"threadId": tid, "turnId": first, "itemIds": [str(i) for i in range(101)]}
    assert await refused(server, "thread/items/read", too_many) == (
        -32600,
        "itemIds must contain 1 to 100 IDs",
    )
    bad = {"threadId": "nope", "turnId": "nope", "itemIds": ["x"]}
    assert await refused(server, "thread/items/read", bad) == (-32600, NOT_UUID)
    missing = {"threadId": UNKNOWN_ID, "turnId": "t", "itemIds": ["x"]}
    assert await refused(server, "thread/items/read", missing) == (-32600, f"thread not found: {UNKNOWN_ID}")


async def test_search_occurrences_finds_each_match_in_messages_and_answers(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await _client(start_app)
    tid, (first, second) = await _two_turns(server, fake_model, workdir)
    user, agent = await _items(server, tid, first)
    _user2, agent2 = await _items(server, tid, second)
    found = await server.request("thread/searchOccurrences", {"threadId": tid, "searchTerm": "START"})
    assert [(o["turnId"], o["itemId"], o["snippet"], o["snippetMatchRange"]) for o in found["data"]] == [
        (first, user["id"], "start server", {"start": 0, "end": 5}),
        (first, agent["id"], "started", {"start": 0, "end": 5}),
        (second, agent2["id"], "Start again? It has started.", {"start": 0, "end": 5}),
        (second, agent2["id"], "Start again? It has started.", {"start": 20, "end": 25}),
    ]
    assert found["nextCursor"] is None
    # The turn cursor opens thread/turns/list at that turn.
    page = await server.request(
        "thread/turns/list", {"threadId": tid, "cursor": found["data"][0]["turnCursor"], "limit": 1}
    )
    assert [t["id"] for t in page["data"]] == [first]
    paged = await server.request(
        "thread/searchOccurrences", {"threadId": tid, "searchTerm": "start", "limit": 3}
    )
    assert paged["data"] == found["data"][:3]
    rest = await server.request(
        "thread/searchOccurrences", {"threadId": tid, "searchTerm": "start", "cursor": paged["nextCursor"]}
    )
    assert rest == {"data": found["data"][3:], "nextCursor": None}
    assert await refused(server, "thread/searchOccurrences", {"threadId": tid, "searchTerm": ""}) == (
        -32600,
        "thread/searchOccurrences requires a non-empty searchTerm",
    )
    assert await refused(server, "thread/searchOccurrences", {"threadId": "nope", "searchTerm": "x"}) == (
        -32600,
        NOT_UUID,
    )


async def test_timeline_lists_turn_boundaries_and_items_in_order(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await _client(start_app)
    tid, (first, second) = await _two_turns(server, fake_model, workdir)
    timeline = await server.request("thread/timeline/list", {"threadId": tid})
    entries = timeline["data"]
    assert [(e["type"], e["turnId"]) for e in entries] == [
        ("turnStarted", first),
        ("item", first),
        ("item", first),
        ("turnCompleted", first),
        ("turnStarted", second),
        ("item", second),
        ("item", second),
        ("turnCompleted", second),
    ]
    assert [e["item"] for e in entries if e["type"] == "item"] == [
        *await _items(server, tid, first),
        *await _items(server, tid, second),
    ]
    positions = [e["position"] for e in entries]
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
    done = entries[3]
    assert (done["status"], done["error"], done["turn_id"]) == ("completed", None, first)
    assert timeline["activeRealtimeSessionAtPageStart"] is None and timeline["nextCursor"] is None
    page = await server.request("thread/timeline/list", {"threadId": tid, "limit": 5})
    rest = await server.request("thread/timeline/list", {"threadId": tid, "cursor": page["nextCursor"]})
    assert page["data"] + rest["data"] == entries and rest["nextCursor"] is None
    assert await refused(server, "thread/timeline/list", {"threadId": "nope"}) == (-32600, NOT_UUID)


async def test_turn_settings_update_needs_a_feature_codex_has_off(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    server = await _client(start_app)
    tid, (first, _second) = await _two_turns(server, fake_model, workdir)
    off = (-32600, "turn settings updates require the step_model_switching feature")
    assert (
        await refused(server, "turn/settings/update", {"threadId": tid, "turnId": first, "effort": "low"})
        == off
    )
    assert await refused(server, "turn/settings/update", {"threadId": tid, "turnId": "nope"}) == off
    assert await refused(server, "turn/settings/update", {"threadId": "nope", "turnId": "nope"}) == (
        -32600,
        NOT_UUID,
    )
    assert await refused(server, "turn/settings/update", {"threadId": tid, "turnId": first, "bogus": 1}) == (
        -32600,
        "Invalid request: unknown field `bogus`, expected one of `threadId`, `turnId`, `approvalsReviewer`, "
        "`environments`, `model`, `effort`, `summary`, `serviceTier`",
    )
