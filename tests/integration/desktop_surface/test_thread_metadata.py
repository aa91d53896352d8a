"""`thread/metadata/update` and `thread/inject_items` as Codex 0.169.0 answers them (observed on the
real binary against the fake model): a git info patch (omitted keeps, null clears, a string
replaces) that outlives a restart; raw Responses API items the model sees from the next turn on,
kept in the thread's history across a restart; Codex's errors, with nothing changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tests.integration.desktop_surface.helpers import UNKNOWN_ID, listed_thread, refused, thread, turn
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

BAD_ID = "invalid thread id: invalid length: expected length 32 for simple format, found 3"


def _user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def _texts(body: dict[str, Any]) -> list[str]:
    """The text of every message the model was sent, in order."""
    return [
        part.get("text", "")
        for item in body["input"]
        if item.get("type") == "message"
        for part in item.get("content", [])
        if isinstance(part, dict)
    ]


async def test_metadata_update_patches_git_info_field_by_field_and_keeps_it_across_a_restart(
    tmp_path: Path, start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("r0"))
    home = tmp_path / "home"
    server = await start_app(home=home)
    tid = await listed_thread(server, workdir, "t0")
    original = (await server.request("thread/read", {"threadId": tid}))["thread"]["gitInfo"]

    patched = await server.request(
        "thread/metadata/update", {"threadId": tid, "gitInfo": {"branch": "feature"}}
    )
    assert patched["thread"]["id"] == tid
    assert patched["thread"]["gitInfo"] == {
        **(original or {"sha": None, "originUrl": None}),
        "branch": "feature",
    }
    params = {"threadId": tid, "gitInfo": {"sha": None, "originUrl": "https://example.com/x.git"}}
    patched = await server.request("thread/metadata/update", params)
    want = {"sha": None, "branch": "feature", "originUrl": "https://example.com/x.git"}
    assert patched["thread"]["gitInfo"] == want
    await server.close()

    again = await start_app(home=home)
    assert (await again.request("thread/read", {"threadId": tid}))["thread"]["gitInfo"] == want
    listed = await again.request("thread/list", {})
    assert [t["gitInfo"] for t in listed["data"]] == [want]


async def test_metadata_update_refuses_as_codex_and_changes_nothing(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("r0"))
    server = await start_app()
    tid = await listed_thread(server, workdir, "t0")
    before = (await server.request("thread/read", {"threadId": tid}))["thread"]["gitInfo"]
    cases: list[tuple[dict[str, Any], str]] = [
        ({"threadId": tid}, "thread metadata update must include at least one field"),
        ({"threadId": tid, "gitInfo": None}, "thread metadata update must include at least one field"),
        ({"threadId": tid, "gitInfo": {}}, "gitInfo must include at least one field"),
        ({"threadId": tid, "gitInfo": {"branch": ""}}, "gitInfo.branch must not be empty"),
        (
            {"threadId": tid, "gitInfo": {"sha": "abc", "originUrl": "  "}},
            "gitInfo.originUrl must not be empty",
        ),
        (
            {"threadId": UNKNOWN_ID, "gitInfo": {"branch": "x"}},
            f"no rollout found for thread id {UNKNOWN_ID}",
        ),
        ({"threadId": "bad", "gitInfo": {"branch": "x"}}, BAD_ID),
    ]
    for params, message in cases:
        assert await refused(server, "thread/metadata/update", params) == (-32600, message)
    assert (await server.request("thread/read", {"threadId": tid}))["thread"]["gitInfo"] == before


async def test_injected_items_reach_the_model_next_turn_and_stay_in_history_after_a_restart(
    tmp_path: Path, start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(*(script.text_reply(f"r{i}") for i in range(3)))
    home = tmp_path / "home"
    server = await start_app(home=home)
    tid = await listed_thread(server, workdir, "first")
    items = [
        _user("INJECTED-USER"),
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "INJECTED-ASSISTANT"}],
        },
        {"type": "some_future_item", "x": 1},  # Codex takes it and never sends it
    ]
    mark = server.mark()
    assert await server.request("thread/inject_items", {"threadId": tid, "items": items}) == {}
    assert server.since(mark) == [m for m in server.since(mark) if "method" not in m]  # no notification
    # Not a thread item: the client's view of the thread is unchanged.
    shown = await server.request("thread/items/list", {"threadId": tid})
    assert "INJECTED" not in str(shown)

    await turn(server, tid, "second")
    body = fake_model.requests[-1].body
    texts = _texts(body)
    assert texts[-4:] == ["r0", "INJECTED-USER", "INJECTED-ASSISTANT", "second"]
    assert "some_future_item" not in str(body["input"])
    await server.close()

    again = await start_app(home=home)
    await again.request("thread/resume", {"threadId": tid})
    await turn(again, tid, "third")
    texts = _texts(fake_model.requests[-1].body)
    assert texts[-6:] == ["r0", "INJECTED-USER", "INJECTED-ASSISTANT", "second", "r1", "third"]


async def test_items_injected_before_the_first_turn_reach_the_first_turn(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("r0"))
    server = await start_app()
    tid = await thread(server, workdir)
    assert await server.request("thread/inject_items", {"threadId": tid, "items": [_user("EARLY")]}) == {}
    assert (await server.request("thread/list", {}))["data"] == []  # still not a listed thread
    await turn(server, tid, "hello")
    texts = _texts(fake_model.requests[-1].body)
    assert texts[-1] == "hello" and "EARLY" in texts


async def test_inject_items_refuses_as_codex_and_injects_nothing(
    tmp_path: Path, start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("r0"), script.text_reply("r1"))
    home = tmp_path / "home"
    server = await start_app(home=home)
    tid = await listed_thread(server, workdir, "first")
    bad = "is not a valid response item"
    cases: list[tuple[dict[str, Any], str]] = [
        ({"threadId": tid, "items": []}, "items must not be empty"),
        (
            {"threadId": tid, "items": [42]},
            f"items[0] {bad}: invalid type: integer `42`, expected internally tagged enum ResponseItem",
        ),
        ({"threadId": tid, "items": [_user("LOST"), {"nope": 1}]}, f"items[1] {bad}: missing field `type`"),
        (
            {"threadId": tid, "items": [{"type": "message", "role": "user"}]},
            f"items[0] {bad}: missing field `content`",
        ),
        ({"threadId": UNKNOWN_ID, "items": []}, f"thread not found: {UNKNOWN_ID}"),
        ({"threadId": "bad", "items": []}, BAD_ID),
    ]
    for params, message in cases:
        assert await refused(server, "thread/inject_items", params) == (-32600, message)
    await turn(server, tid, "second")
    assert "LOST" not in _texts(fake_model.requests[-1].body)
    await server.close()

    # Only a loaded thread takes items: after a restart it must be resumed first.
    again = await start_app(home=home)
    params = {"threadId": tid, "items": [_user("x")]}
    assert await refused(again, "thread/inject_items", params) == (-32600, f"thread not found: {tid}")
