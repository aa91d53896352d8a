"""Thread attachments as Codex 0.169.0 keeps them (observed on the real binary against the fake
model): named within a thread by (type, identity key), added once (`existing` answers the first
payload), listed oldest first and per owner, dropped with their thread, kept across a restart;
`thread/attachment/updated` follows each change, never a no-op; Codex's errors, nothing changed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import StartApp, StartServer
from tests.integration.desktop_surface.helpers import UNKNOWN_ID, listed_thread, refused, thread
from tests.support.rpcclient import RpcClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


def _add(tid: str, kind: str, key: str, payload: Any) -> dict[str, Any]:
    return {"threadId": tid, "attachmentType": kind, "identityKey": key, "payload": payload}


def _updates(server: RpcClient, mark: int) -> list[dict[str, Any]]:
    return [m["params"] for m in server.since(mark) if m.get("method") == "thread/attachment/updated"]


async def test_add_is_once_per_identity_and_list_pages_oldest_first(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("r0"))
    server = await start_app()
    tid = await listed_thread(server, workdir, "t0")
    assert await server.request("thread/attachment/list", {"threadId": tid}) == {
        "data": [],
        "nextCursor": None,
    }

    mark = server.mark()
    first = await server.request("thread/attachment/add", _add(tid, "file", "k1", {"a": 1}))
    assert first["outcome"] == "created"
    made = first["attachment"]
    assert (made["attachmentType"], made["identityKey"], made["payload"]) == ("file", "k1", {"a": 1})
    # The same identity again answers the stored attachment, payload unchanged.
    again = await server.request("thread/attachment/add", _add(tid, "file", "k1", {"a": 2}))
    assert again == {"outcome": "existing", "attachment": made}
    other_type = await server.request("thread/attachment/add", _add(tid, "pr", "k1", "text"))
    null_payload = await server.request("thread/attachment/add", _add(tid, " file ", " k2 ", None))
    assert null_payload["attachment"]["payload"] is None  # kept as given, untrimmed
    last = null_payload["attachment"]["id"]
    await server.notification(
        "thread/attachment/updated", after=mark, where=lambda p: p["attachmentId"] == last
    )
    created = [
        (made["id"], "file", "k1"),
        (other_type["attachment"]["id"], "pr", "k1"),
        (last, " file ", " k2 "),
    ]
    assert [
        (u["attachmentId"], u["attachmentType"], u["identityKey"]) for u in _updates(server, mark)
    ] == created
    assert {u["operation"] for u in _updates(server, mark)} == {"created"}

    everything = [made, other_type["attachment"], null_payload["attachment"]]
    assert await server.request("thread/attachment/list", {"threadId": tid}) == {
        "data": everything,
        "nextCursor": None,
    }
    page = await server.request("thread/attachment/list", {"threadId": tid, "limit": 0})  # 0 reads as 1
    assert page["data"] == everything[:1] and page["nextCursor"] == f"{tid}|{made['createdAt']}|{made['id']}"
    rest = await server.request(
        "thread/attachment/list", {"threadId": tid, "limit": 2, "cursor": page["nextCursor"]}
    )
    assert rest == {"data": everything[1:], "nextCursor": None}
    # An unknown thread has no attachments; a cursor Tether did not give is refused.
    assert await server.request("thread/attachment/list", {"threadId": UNKNOWN_ID}) == {
        "data": [],
        "nextCursor": None,
    }
    assert await refused(server, "thread/attachment/list", {"threadId": tid, "cursor": "bogus"}) == (
        -32602,
        "invalid pagination cursor",
    )


async def test_remove_notifies_only_when_something_went(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("r0"))
    server = await start_app()
    tid = await listed_thread(server, workdir, "t0")
    kept = (await server.request("thread/attachment/add", _add(tid, "file", "keep", 1)))["attachment"]
    gone = (await server.request("thread/attachment/add", _add(tid, "file", "gone", 2)))["attachment"]
    mark = server.mark()
    params = {"threadId": tid, "attachmentType": "file", "identityKey": "gone"}
    assert await server.request("thread/attachment/remove", params) == {}
    deleted = await server.notification("thread/attachment/updated", after=mark)
    assert deleted["params"] == {
        "threadId": tid,
        "attachmentType": "file",
        "identityKey": "gone",
        "attachmentId": gone["id"],
        "operation": "deleted",
    }
    mark = server.mark()
    assert await server.request("thread/attachment/remove", params) == {}  # nothing there: still {}
    assert await server.request("thread/attachment/list", {"threadId": tid}) == {
        "data": [kept],
        "nextCursor": None,
    }
    assert _updates(server, mark) == []


async def test_owners_are_listed_by_thread_with_their_archived_flag_and_go_with_the_thread(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("r0"), script.text_reply("r1"), script.text_reply("r2"))
    server = await start_app()
    tids = sorted([await listed_thread(server, workdir, f"t{i}") for i in range(3)])
    for tid in tids[:2]:
        await server.request("thread/attachment/add", _add(tid, "pr", "github/1", {"n": 1}))
    await server.request("thread/attachment/add", _add(tids[2], "pr", "github/2", None))
    query = {"attachmentType": "pr", "identityKey": "github/1"}
    owners = await server.request("thread/attachmentOwner/list", query)
    assert owners == {"data": [{"threadId": t, "archived": False} for t in tids[:2]], "nextCursor": None}

    await server.request("thread/archive", {"threadId": tids[1]})
    both = [{"threadId": tids[0], "archived": False}, {"threadId": tids[1], "archived": True}]
    assert (await server.request("thread/attachmentOwner/list", query))["data"] == both
    assert (await server.request("thread/attachmentOwner/list", {**query, "archived": False}))[
        "data"
    ] == both[:1]
    assert (await server.request("thread/attachmentOwner/list", {**query, "archived": True}))["data"] == both[
        1:
    ]
    # An archived thread still takes attachments.
    added = await server.request("thread/attachment/add", _add(tids[1], "pr", "github/9", 1))
    assert added["outcome"] == "created"

    first = await server.request("thread/attachmentOwner/list", {**query, "limit": 1})
    assert first["data"] == both[:1]
    assert json.loads(first["nextCursor"])["thread_id"] == tids[0]
    second = await server.request(
        "thread/attachmentOwner/list", {**query, "limit": 1, "cursor": first["nextCursor"]}
    )
    assert second == {"data": both[1:], "nextCursor": None}
    for cursor in ("bogus", first["nextCursor"].replace("github/1", "github/2")):
        assert await refused(server, "thread/attachmentOwner/list", {**query, "cursor": cursor}) == (
            -32602,
            "invalid pagination cursor",
        )

    await server.request("thread/unarchive", {"threadId": tids[1]})
    await server.request("thread/delete", {"threadId": tids[1]})
    assert (await server.request("thread/attachmentOwner/list", query))["data"] == both[:1]
    assert await server.request("thread/attachment/list", {"threadId": tids[1]}) == {
        "data": [],
        "nextCursor": None,
    }


async def test_codex_errors_change_nothing(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("r0"))
    server = await start_app()
    tid = await listed_thread(server, workdir, "t0")
    fresh = await thread(server, workdir)  # no turn yet: not written, so not found
    bad_id = (
        "invalid thread id: invalid character: expected an optional prefix of `urn:uuid:` followed by "
        "[0-9a-fA-F-], found `n` at 1"
    )
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("thread/attachment/add", _add("not-a-uuid", "f", "k", 1), bad_id),
        ("thread/attachment/list", {"threadId": "not-a-uuid"}, bad_id),
        ("thread/attachment/add", _add(UNKNOWN_ID, "f", "k", 1), f"thread not found: {UNKNOWN_ID}"),
        ("thread/attachment/add", _add(fresh, "f", "k", 1), f"thread not found: {fresh}"),
        ("thread/attachment/add", _add(tid, "", "k", 1), "attachmentType must not be empty"),
        ("thread/attachment/add", _add(tid, "f", "", 1), "identityKey must not be empty"),
        ("thread/attachment/add", _add(tid, "x" * 257, "k", 1), "attachmentType must not exceed 256 bytes"),
        ("thread/attachment/add", _add(tid, "f", "é" * 129, 1), "identityKey must not exceed 256 bytes"),
        (
            "thread/attachment/add",
            _add(tid, "f", "k", "x" * 65535),
            "attachment payload must not exceed 65536 bytes",
        ),
        (
            "thread/attachment/remove",
            {"threadId": UNKNOWN_ID, "attachmentType": "f", "identityKey": "k"},
            f"thread not found: {UNKNOWN_ID}",
        ),
        (
            "thread/attachment/remove",
            {"threadId": tid, "attachmentType": "", "identityKey": "k"},
            "attachmentType must not be empty",
        ),
        (
            "thread/attachmentOwner/list",
            {"attachmentType": "", "identityKey": "k"},
            "attachmentType must not be empty",
        ),
        (
            "thread/attachmentOwner/list",
            {"attachmentType": "f", "identityKey": ""},
            "identityKey must not be empty",
        ),
    ]
    for method, params, message in cases:
        assert await refused(server, method, params) == (-32602, message), method
    # The limits are inclusive: 256 bytes of key, 65536 bytes of JSON payload (the quotes count).
    edge = await server.request("thread/attachment/add", _add(tid, "f" * 256, "k" * 256, "x" * 65534))
    assert edge["outcome"] == "created"
    assert await refused(
        server, "thread/attachment/add", {"threadId": tid, "attachmentType": "f", "identityKey": "k"}
    ) == (
        -32602,
        "Invalid params: missing field `payload`",
    )
    listed = await server.request("thread/attachment/list", {"threadId": tid})
    assert [a["id"] for a in listed["data"]] == [edge["attachment"]["id"]]


async def test_attachments_outlive_a_daemon_restart(
    tmp_path: Path, start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("r0"))
    home = tmp_path / "home"
    server = await start_server(home=home)
    tid = await listed_thread(server, workdir, "t0")
    made = (
        await server.request("thread/attachment/add", _add(tid, "file", "k1", {"deep": [1, "two", None]}))
    )["attachment"]
    await server.request("thread/attachment/add", _add(tid, "file", "k2", 2))
    await server.request(
        "thread/attachment/remove", {"threadId": tid, "attachmentType": "file", "identityKey": "k2"}
    )
    await server.close()

    again = await start_server(home=home)
    assert await again.request("thread/attachment/list", {"threadId": tid}) == {
        "data": [made],
        "nextCursor": None,
    }
    owners = await again.request(
        "thread/attachmentOwner/list", {"attachmentType": "file", "identityKey": "k1"}
    )
    assert owners["data"] == [{"threadId": tid, "archived": False}]
    assert (await again.request("thread/attachment/add", _add(tid, "file", "k1", 0)))["outcome"] == "existing"
