"""Thread sections as Codex 0.169.0 keeps them (observed on the real binary against the fake model):
the built-in "Pinned" first, user sections after it in creation order, threads placed in a
section in an order of their own, `thread/section/changed` after each move, all of it kept
across a restart."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import StartApp
from tests.integration.desktop_surface.helpers import PINNED, UNKNOWN_ID, listed_thread, refused, thread
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

PINNED_SECTION = {"id": PINNED, "name": "Pinned", "appearance": None}


async def test_sections_list_pinned_first_then_by_creation_and_page_by_id(start_app: StartApp) -> None:
    server = await start_app()
    assert await server.request("threadSection/list", {}) == {"data": [PINNED_SECTION], "nextCursor": None}

    work = (await server.request("threadSection/create", {"name": "  Work  "}))["section"]
    play = (await server.request("threadSection/create", {"name": "Play", "appearance": {"color": "red"}}))[
        "section"
    ]
    same = (await server.request("threadSection/create", {"name": "Work", "appearance": {}}))["section"]
    assert (work["name"], work["appearance"]) == ("Work", None)
    assert play["appearance"] == {"icon": None, "color": "red"}
    assert same["appearance"] == {"icon": None, "color": None} and same["id"] != work["id"]

    everything = await server.request("threadSection/list", {})
    assert everything == {"data": [PINNED_SECTION, work, play, same], "nextCursor": None}
    first = await server.request("threadSection/list", {"limit": 2})
    assert first == {"data": [PINNED_SECTION, work], "nextCursor": work["id"]}
    second = await server.request("threadSection/list", {"limit": 2, "cursor": work["id"]})
    assert second == {"data": [play, same], "nextCursor": None}
    assert (await server.request("threadSection/list", {"limit": 0}))["data"] == [PINNED_SECTION]
    assert await server.request("threadSection/list", {"cursor": "bogus"}) == {"data": [], "nextCursor": None}


async def test_renaming_and_deleting_sections_answer_codex_errors(start_app: StartApp) -> None:
    server = await start_app()
    sid = (await server.request("threadSection/create", {"name": "A", "appearance": {"icon": "star"}}))[
        "section"
    ]["id"]
    for name in ("", "   "):
        assert await refused(server, "threadSection/create", {"name": name}) == (
            -32602,
            "section name must not be empty",
        )
        assert await refused(server, "threadSection/update", {"sectionId": sid, "name": name}) == (
            -32602,
            "section name must not be empty",
        )
    for method, params in (
        ("threadSection/update", {"sectionId": "nope", "name": "z"}),
        ("threadSection/delete", {"sectionId": UNKNOWN_ID}),
    ):
        missing = params["sectionId"]
        assert await refused(server, method, params) == (-32602, f"thread section not found: {missing}")
    assert await refused(server, "threadSection/update", {"sectionId": PINNED, "name": "Stuck"}) == (
        -32602,
        "the built-in pinned section cannot be renamed",
    )
    assert await refused(server, "threadSection/delete", {"sectionId": PINNED}) == (
        -32602,
        "the built-in pinned section cannot be deleted",
    )

    # An omitted appearance stays; null clears it.
    kept = await server.request("threadSection/update", {"sectionId": sid, "name": "B"})
    assert kept["section"] == {"id": sid, "name": "B", "appearance": {"icon": "star", "color": None}}
    cleared = await server.request(
        "threadSection/update", {"sectionId": sid, "name": "B", "appearance": None}
    )
    assert cleared["section"]["appearance"] is None
    assert await server.request("threadSection/delete", {"sectionId": sid}) == {}
    assert await refused(server, "threadSection/delete", {"sectionId": sid}) == (
        -32602,
        f"thread section not found: {sid}",
    )
    listed = await server.request("threadSection/list", {})
    assert listed["data"] == [PINNED_SECTION]


async def test_moving_threads_orders_a_section_lists_it_and_announces_each_move(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(*(script.text_reply(f"r{i}") for i in range(4)))
    server = await start_app()
    sid = (await server.request("threadSection/create", {"name": "A"}))["section"]["id"]
    t0, t1, t2, t3 = [await listed_thread(server, workdir, f"t{i}") for i in range(4)]

    mark = server.mark()
    assert await server.request("thread/section/move", {"threadId": t0, "sectionId": sid}) == {}
    changed = await server.notification("thread/section/changed", after=mark)
    assert changed["params"] == {"threadId": t0, "sectionId": sid}
    assert [m.get("method", "<result>") for m in server.since(mark)] == ["<result>", "thread/section/changed"]
    for tid in (t1, t2):
        await server.request("thread/section/move", {"threadId": tid, "sectionId": sid})
    await server.request("thread/section/move", {"threadId": t3, "sectionId": PINNED})

    async def order(**params: object) -> list[str]:
        page = await server.request(
            "thread/list", {"sectionId": sid, "sortKey": "section_position", **params}
        )
        return [t["id"] for t in page["data"]]

    assert await order() == [t0, t1, t2]
    assert await order(sortDirection="desc") == [t2, t1, t0]
    await server.request("thread/section/move", {"threadId": t2, "sectionId": sid, "beforeThreadId": t0})
    await server.request("thread/section/move", {"threadId": t1, "sectionId": sid, "beforeThreadId": t2})
    assert await order() == [t1, t2, t0]
    first = await server.request("thread/list", {"sectionId": sid, "sortKey": "section_position", "limit": 2})
    assert [t["id"] for t in first["data"]] == [t1, t2]
    assert await order(limit=2, cursor=first["nextCursor"]) == [t0]

    read = (await server.request("thread/read", {"threadId": t1}))["thread"]
    assert read["section"] == {"id": sid, "name": "A", "appearance": None}
    assert isinstance(read["sectionEnteredAt"], int)
    by_created = await server.request("thread/list", {"sectionId": sid})
    assert [t["id"] for t in by_created["data"]] == [t2, t1, t0]
    pinned = await server.request("thread/list", {"sectionId": PINNED})
    assert [t["id"] for t in pinned["data"]] == [t3]
    assert (await server.request("thread/list", {"sectionId": UNKNOWN_ID}))["data"] == []

    await server.request("thread/section/move", {"threadId": t0, "sectionId": None})
    unsectioned = await server.request("thread/list", {"sectionId": None})
    assert [t["id"] for t in unsectioned["data"]] == [t0]
    assert unsectioned["data"][0]["section"] is None
    everyone = await server.request("thread/list", {})
    assert {t["id"] for t in everyone["data"]} == {t0, t1, t2, t3}


async def test_thread_section_move_refuses_as_codex_and_changes_nothing(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("r0"), script.text_reply("r1"))
    server = await start_app()
    a = (await server.request("threadSection/create", {"name": "A"}))["section"]["id"]
    b = (await server.request("threadSection/create", {"name": "B"}))["section"]["id"]
    t0 = await listed_thread(server, workdir, "t0")
    t1 = await listed_thread(server, workdir, "t1")
    await server.request("thread/section/move", {"threadId": t0, "sectionId": a})
    mark = server.mark()

    cases = [
        (
            {"threadId": t0, "sectionId": a, "beforeThreadId": t0},
            f"thread {t0} cannot be moved before itself",
        ),
        ({"threadId": t1, "sectionId": b, "beforeThreadId": t0}, f"before thread {t0} is not in section {b}"),
        ({"threadId": t1, "sectionId": UNKNOWN_ID}, f"section {UNKNOWN_ID} does not exist"),
        ({"threadId": UNKNOWN_ID, "sectionId": a}, f"thread not found: {UNKNOWN_ID}"),
        (
            {"threadId": "bad", "sectionId": a},
            "invalid thread id: invalid length: expected length 32 for simple format, found 3",
        ),
    ]
    for params, message in cases:
        assert await refused(server, "thread/section/move", params) == (-32600, message)
    assert await refused(server, "thread/list", {"sortKey": "section_position"}) == (
        -32600,
        "section-position sorting requires a section filter",
    )
    assert not [m for m in server.since(mark) if m.get("method") == "thread/section/changed"]
    listed = await server.request("thread/list", {"sectionId": a})
    assert [t["id"] for t in listed["data"]] == [t0]


async def test_sections_and_places_outlive_a_restart_and_deleting_a_section_unsections_its_threads(
    tmp_path: Path, start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("r0"), script.text_reply("r1"))
    home = tmp_path / "home"
    server = await start_app(home=home)
    sid = (await server.request("threadSection/create", {"name": "Keep", "appearance": {"color": "blue"}}))[
        "section"
    ]["id"]
    t0 = await listed_thread(server, workdir, "t0")
    t1 = await listed_thread(server, workdir, "t1")
    fresh = await thread(server, workdir)  # never written: Codex lets it be sectioned all the same
    await server.request("thread/section/move", {"threadId": t0, "sectionId": sid})
    await server.request("thread/section/move", {"threadId": t1, "sectionId": sid, "beforeThreadId": t0})
    await server.request("thread/section/move", {"threadId": fresh, "sectionId": PINNED})
    before = (await server.request("thread/read", {"threadId": t0}))["thread"]
    sections = await server.request("threadSection/list", {})
    await server.close()

    again = await start_app(home=home)
    assert await again.request("threadSection/list", {}) == sections
    page = await again.request("thread/list", {"sectionId": sid, "sortKey": "section_position"})
    assert [t["id"] for t in page["data"]] == [t1, t0]
    after = (await again.request("thread/read", {"threadId": t0}))["thread"]
    assert (after["section"], after["sectionEnteredAt"]) == (before["section"], before["sectionEnteredAt"])
    assert after["section"]["appearance"] == {"icon": None, "color": "blue"}

    assert await again.request("threadSection/delete", {"sectionId": sid}) == {}
    assert (await again.request("thread/read", {"threadId": t0}))["thread"]["section"] is None
    unsectioned = await again.request("thread/list", {"sectionId": None})
    assert {t["id"] for t in unsectioned["data"]} == {t0, t1}
    await again.close()

    third = await start_app(home=home)
    assert [s["id"] for s in (await third.request("threadSection/list", {}))["data"]] == [PINNED]
