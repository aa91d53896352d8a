"""Projects (`project/*`, experimental) as Codex 0.169.0 keeps them (observed on the real binary
against the fake model): positions from 0 in creation order, a move renumbering them, a deletion
leaving its gap; one project per idempotency key; threads joining with `project/import` and left
in no project when it is deleted; `project/changed` and `thread/project/updated` after each
change; all of it kept across a restart; Codex's errors, nothing changed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from tests.conftest import StartApp, StartServer
from tests.integration.desktop_surface.helpers import listed_thread, refused, turn
from tests.support.rpcclient import RpcClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

Client = TypeVar("Client", bound=RpcClient)


async def _experimental(start: Callable[..., Awaitable[Client]], **kw: Any) -> Client:
    server = await start(initialize=False, **kw)
    await server.initialize(experimental=True)
    return server


async def _create(server: RpcClient, key: str, name: str, roots: list[str], **extra: Any) -> dict[str, Any]:
    params = {"idempotencyKey": key, "name": name, "roots": [{"path": p} for p in roots], **extra}
    project: dict[str, Any] = (await server.request("project/create", params))["project"]
    return project


async def _names(server: RpcClient, **params: Any) -> list[tuple[str, int]]:
    listed = await server.request("project/list", params)
    return [(p["name"], p["position"]) for p in listed["data"]]


def _changes(server: RpcClient, mark: int) -> list[tuple[str, Any, Any]]:
    return [
        (
            m["method"],
            m["params"].get("projectId"),
            m["params"].get("changeType", m["params"].get("threadId")),
        )
        for m in server.since(mark)
        if m.get("method") in ("project/changed", "thread/project/updated")
    ]


async def test_projects_are_created_once_per_key_moved_updated_and_listed_by_position(
    start_app: StartApp, workdir: Path
) -> None:
    server = await _experimental(start_app)
    assert await server.request("project/list", {}) == {"data": [], "nextCursor": None}
    mark = server.mark()
    alpha = await _create(server, "k1", "  Alpha  ", [str(workdir)])
    assert (alpha["name"], alpha["position"], alpha["metadata"], alpha["recencyAt"]) == ("Alpha", 0, {}, None)
    assert alpha["roots"] == [{"path": str(workdir)}] and alpha["createdAt"] == alpha["updatedAt"]
    assert await _create(server, "k1", "Other", []) == alpha  # same key: the same project, no change
    beta = await _create(server, "k2", "Beta", [], metadata={"color": "red"})
    gamma = await _create(server, "k3", "Gamma", ["/nonexistent/root"])  # roots need not exist
    assert (beta["position"], beta["metadata"], gamma["position"]) == (1, {"color": "red"}, 2)
    assert await _names(server) == [("Alpha", 0), ("Beta", 1), ("Gamma", 2)]

    # A move renumbers every project; only the moved one is announced.
    assert (
        await server.request("project/move", {"projectId": beta["id"], "beforeProjectId": alpha["id"]}) == {}
    )
    assert await _names(server) == [("Beta", 0), ("Alpha", 1), ("Gamma", 2)]
    assert await server.request("project/move", {"projectId": beta["id"]}) == {}  # last
    assert await _names(server) == [("Alpha", 0), ("Gamma", 1), ("Beta", 2)]

    renamed = await server.request("project/update", {"projectId": alpha["id"], "name": "Alpha2"})
    assert renamed["project"]["name"] == "Alpha2"
    untouched = await server.request("project/update", {"projectId": alpha["id"]})  # nothing given: no change
    assert untouched["project"] == renamed["project"]
    meta = await server.request(
        "project/update", {"projectId": alpha["id"], "metadata": {"a": "b"}, "roots": []}
    )
    assert (meta["project"]["metadata"], meta["project"]["roots"]) == ({"a": "b"}, [])
    cleared = await server.request("project/update", {"projectId": alpha["id"], "metadata": {}})
    assert cleared["project"]["metadata"] == {}
    assert (await server.request("project/read", {"projectId": alpha["id"]}))["project"] == cleared["project"]

    page = await server.request("project/list", {"limit": 1})
    assert [p["id"] for p in page["data"]] == [alpha["id"]] and page["nextCursor"] == f"0|{alpha['id']}"
    rest = await server.request("project/list", {"cursor": page["nextCursor"]})
    assert [p["name"] for p in rest["data"]] == ["Gamma", "Beta"] and rest["nextCursor"] is None
    backwards = await server.request("project/list", {"sortKey": "position", "sortDirection": "desc"})
    assert [p["name"] for p in backwards["data"]] == ["Beta", "Gamma", "Alpha2"]

    assert await server.request("project/delete", {"projectId": gamma["id"]}) == {}
    assert await _names(server) == [("Alpha2", 0), ("Beta", 2)]  # the gap stays
    await server.notification("project/changed", after=mark, where=lambda p: p["changeType"] == "deleted")
    assert _changes(server, mark) == [
        ("project/changed", alpha["id"], "created"),
        ("project/changed", beta["id"], "created"),
        ("project/changed", gamma["id"], "created"),
        ("project/changed", beta["id"], "updated"),
        ("project/changed", beta["id"], "updated"),
        ("project/changed", alpha["id"], "updated"),
        ("project/changed", alpha["id"], "updated"),
        ("project/changed", alpha["id"], "updated"),
        ("project/changed", gamma["id"], "deleted"),
    ]


async def test_imported_threads_belong_to_the_project_until_it_is_deleted(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("r0"), script.text_reply("r1"))
    server = await _experimental(start_app)
    kept = await listed_thread(server, workdir, "kept")
    other = await listed_thread(server, workdir, "other")
    empty = await _create(server, "k0", "Empty", [])
    mark = server.mark()
    params = {"idempotencyKey": "k1", "name": "Imported", "roots": [], "threads": [kept]}
    project = (await server.request("project/import", params))["project"]
    read = (await server.request("thread/read", {"threadId": kept}))["thread"]
    assert read["projectId"] == project["id"]
    assert project["recencyAt"] == read["recencyAt"]
    assert (await server.request("thread/read", {"threadId": other}))["thread"]["projectId"] is None
    listed = {t["id"]: t["projectId"] for t in (await server.request("thread/list", {}))["data"]}
    assert listed == {kept: project["id"], other: None}

    # By recency: projects with threads first, empty ones last.
    by_recency = await server.request("project/list", {"sortKey": "recencyAt"})
    assert [p["id"] for p in by_recency["data"]] == [project["id"], empty["id"]]
    oldest_first = await server.request("project/list", {"sortKey": "recencyAt", "sortDirection": "asc"})
    assert [p["id"] for p in oldest_first["data"]] == [project["id"], empty["id"]]  # empty ones still last
    first = await server.request("project/list", {"sortKey": "recencyAt", "limit": 1})
    assert first["nextCursor"] == f"v1|recencyAt|desc|{project['recencyAt'] * 1000}|{project['id']}"
    rest = await server.request(
        "project/list", {"sortKey": "recencyAt", "limit": 1, "cursor": first["nextCursor"]}
    )
    assert [p["id"] for p in rest["data"]] == [empty["id"]] and rest["nextCursor"] is None
    await server.request("thread/archive", {"threadId": kept})
    assert (await server.request("project/read", {"projectId": project["id"]}))["project"][
        "recencyAt"
    ] is None
    await server.request("thread/unarchive", {"threadId": kept})

    assert await server.request("project/delete", {"projectId": project["id"]}) == {}
    await server.notification("thread/project/updated", after=mark, where=lambda p: p["projectId"] is None)
    assert _changes(server, mark) == [
        ("project/changed", project["id"], "created"),
        ("thread/project/updated", project["id"], kept),
        ("project/changed", project["id"], "deleted"),
        ("thread/project/updated", None, kept),
    ]
    assert (await server.request("thread/read", {"threadId": kept}))["thread"]["projectId"] is None


async def test_codex_errors_for_projects_change_nothing(start_app: StartApp, workdir: Path) -> None:
    server = await _experimental(start_app)
    alpha = await _create(server, "k1", "Alpha", [])
    unknown = "01984de2-8f74-7c91-a3b2-5c5e937cf399"
    mark = server.mark()
    root = [{"path": str(workdir)}]
    cases: list[tuple[str, dict[str, Any], tuple[int, str]]] = [
        (
            "project/create",
            {"idempotencyKey": "k3", "name": " ", "roots": []},
            (-32602, "project name must not be empty"),
        ),
        (
            "project/create",
            {"idempotencyKey": "", "name": "x", "roots": []},
            (-32602, "idempotencyKey must not be empty"),
        ),
        (
            "project/create",
            {"idempotencyKey": "k4", "name": "x", "roots": [{"path": "rel/path"}]},
            (-32600, "Invalid request: AbsolutePathBuf deserialized without a base path"),
        ),
        (
            "project/create",
            {"idempotencyKey": "k6", "name": "x", "roots": root + root},
            (-32602, f"duplicate project root: {workdir}"),
        ),
        (
            "project/import",
            {"idempotencyKey": "k7", "name": "x", "roots": [], "threads": [unknown]},
            (-32602, f"thread not found: {unknown}"),
        ),
        ("project/list", {"sortDirection": "desc"}, (-32602, "sortDirection requires sortKey")),
        (
            "project/list",
            {"cursor": "bogus"},
            (-32602, "invalid project cursor: malformed or mismatched sort anchor"),
        ),
        ("project/read", {"projectId": "nope"}, (-32602, "project not found: nope")),
        ("project/update", {"projectId": "nope", "name": "z"}, (-32602, "project not found: nope")),
        (
            "project/update",
            {"projectId": alpha["id"], "name": ""},
            (-32602, "project name must not be empty"),
        ),
        (
            "project/move",
            {"projectId": alpha["id"], "beforeProjectId": alpha["id"]},
            (-32602, f"project {alpha['id']} cannot be moved before itself"),
        ),
        (
            "project/move",
            {"projectId": alpha["id"], "beforeProjectId": "nope"},
            (-32602, "before project not found: nope"),
        ),
        ("project/delete", {"projectId": unknown}, (-32602, f"project not found: {unknown}")),
    ]
    for method, params, answer in cases:
        assert await refused(server, method, params) == answer, method
    assert await server.request("project/list", {}) == {"data": [alpha], "nextCursor": None}
    assert _changes(server, mark) == []
    plain = await start_app()
    code, message = await refused(plain, "project/list", {})
    assert code == -32600 and "experimentalApi" in message


async def test_projects_and_their_threads_outlive_a_daemon_restart(
    tmp_path: Path, start_server: StartServer, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("r0"))
    home = tmp_path / "home"
    server = await _experimental(start_server, home=home)
    tid = await listed_thread(server, workdir, "t0")
    first = await _create(server, "k1", "First", [str(workdir)], metadata={"m": "1"})
    params = {"idempotencyKey": "k2", "name": "Second", "roots": [], "threads": [tid]}
    second = (await server.request("project/import", params))["project"]
    await server.request("project/move", {"projectId": second["id"], "beforeProjectId": first["id"]})
    listed = (await server.request("project/list", {}))["data"]
    await server.close()

    again = await _experimental(start_server, home=home)
    assert (await again.request("project/list", {}))["data"] == listed
    assert [p["name"] for p in listed] == ["Second", "First"]
    assert (await again.request("thread/read", {"threadId": tid}))["thread"]["projectId"] == second["id"]
    assert await _create(again, "k1", "ignored", []) == next(p for p in listed if p["id"] == first["id"])
    # The thread is not loaded after the restart; clients hear that it left its project all the same.
    mark = again.mark()
    assert await again.request("project/delete", {"projectId": second["id"]}) == {}
    left = await again.notification("thread/project/updated", after=mark)
    assert left["params"] == {"threadId": tid, "projectId": None}


async def test_a_thread_started_in_a_project_is_listed_by_project(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(script.text_reply("r0"), script.text_reply("r1"), script.text_reply("r2"))
    server = await _experimental(start_app)
    project = await _create(server, "k1", "P", [str(workdir)])
    mark = server.mark()
    started = await server.request("thread/start", {"cwd": str(workdir), "projectId": project["id"]})
    inside = started["thread"]["id"]
    assert started["thread"]["projectId"] == project["id"]
    await turn(server, inside, "in the project")
    second = await server.request("thread/start", {"cwd": str(workdir), "projectId": project["id"]})
    await turn(server, second["thread"]["id"], "also in it")
    outside = await listed_thread(server, workdir, "outside")
    assert [m for m in server.since(mark) if m.get("method") == "thread/project/updated"] == []

    def ids(listed: dict[str, Any]) -> list[str]:
        return [t["id"] for t in listed["data"]]

    newest_first = [second["thread"]["id"], inside]
    assert ids(await server.request("thread/list", {"projectId": project["id"]})) == newest_first
    assert ids(await server.request("thread/list", {"projectId": None})) == [outside]
    assert set(ids(await server.request("thread/list", {}))) == {*newest_first, outside}
    assert ids(await server.request("thread/list", {"projectId": "nope"})) == []
    page = await server.request("thread/list", {"projectId": project["id"], "limit": 1})
    assert ids(page) == newest_first[:1]
    rest = await server.request("thread/list", {"projectId": project["id"], "cursor": page["nextCursor"]})
    assert ids(rest) == newest_first[1:] and rest["nextCursor"] is None
    read = await server.request("thread/read", {"threadId": inside})
    assert read["thread"]["projectId"] == project["id"]

    assert await refused(server, "thread/start", {"cwd": str(workdir), "projectId": "nope"}) == (
        -32600,
        "project not found: nope",
    )
