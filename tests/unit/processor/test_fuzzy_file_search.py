"""`fuzzyFileSearch` and its sessions through the daemon: ranked, ignoring what git ignores."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.unit.processor.conftest import Connect


def _project(root: Path) -> Path:
    for rel in ["src/main.py", "src/util/helpers.py", "docs/maintenance.md", "dist/main.min.js", "a.log"]:
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(rel)
    (root / ".gitignore").write_text("dist/\n*.log\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


async def test_search_ranks_file_names_first_and_skips_ignored_files(
    connect: Connect, tmp_path: Path
) -> None:
    root = _project(tmp_path / "proj")
    client = await connect()
    result = await client.request("fuzzyFileSearch", {"query": "main", "roots": [str(root)]})
    files = result["files"]
    assert [f["path"] for f in files] == ["src/main.py", "docs/maintenance.md"]
    top = files[0]
    assert top == {
        "root": str(root),
        "path": "src/main.py",
        "match_type": "file",
        "file_name": "main.py",
        "score": top["score"],
        "indices": [4, 5, 6, 7],
    }
    assert top["score"] > files[1]["score"] > 0
    folders = await client.request("fuzzyFileSearch", {"query": "srcutil", "roots": [str(root)]})
    assert folders["files"][0]["path"] == "src/util" and folders["files"][0]["match_type"] == "directory"
    nothing = await client.request("fuzzyFileSearch", {"query": "log", "roots": [str(root)]})
    assert nothing["files"] == []


async def test_the_daemons_home_is_neither_a_root_nor_listed_under_one(
    connect: Connect, tmp_path: Path
) -> None:
    client = await connect()
    home = tmp_path / "home"
    (tmp_path / "notes.sqlite.txt").write_text("x")
    refused = await client.call("fuzzyFileSearch", {"query": "sqlite", "roots": [str(home)]})
    assert "access denied" in refused["error"]["message"]
    found = await client.request("fuzzyFileSearch", {"query": "sqlite", "roots": [str(tmp_path)]})
    assert [f["path"] for f in found["files"]] == ["notes.sqlite.txt"]
    relative = await client.call("fuzzyFileSearch", {"query": "x", "roots": ["relative"]})
    assert relative["error"]["message"] == "Invalid request: AbsolutePathBuf deserialized without a base path"


async def test_a_session_answers_each_query_with_notifications_to_its_connection(
    connect: Connect, tmp_path: Path
) -> None:
    root = _project(tmp_path / "proj")
    client = await connect(experimental=True)
    other = await connect(experimental=True)
    await client.request("fuzzyFileSearch/sessionStart", {"sessionId": "s1", "roots": [str(root)]})
    mark = client.mark()
    assert await client.request("fuzzyFileSearch/sessionUpdate", {"sessionId": "s1", "query": "help"}) == {}
    updated = await client.notification("fuzzyFileSearch/sessionUpdated", after=mark)
    assert updated["params"]["query"] == "help" and updated["params"]["sessionId"] == "s1"
    assert [f["path"] for f in updated["params"]["files"]] == ["src/util/helpers.py"]
    completed = await client.notification("fuzzyFileSearch/sessionCompleted", after=mark)
    assert completed["params"] == {"sessionId": "s1"}
    answer = next(i for i, m in enumerate(client.messages) if "result" in m and i >= mark)
    assert answer < client.messages.index(updated) < client.messages.index(completed)

    # Session ids belong to their connection.
    stranger = await other.call("fuzzyFileSearch/sessionUpdate", {"sessionId": "s1", "query": "x"})
    assert "unknown file search session" in stranger["error"]["message"]
    assert not [m for m in other.messages if str(m.get("method", "")).startswith("fuzzyFileSearch/")]

    await client.request("fuzzyFileSearch/sessionStop", {"sessionId": "s1"})
    stopped = await client.call("fuzzyFileSearch/sessionUpdate", {"sessionId": "s1", "query": "x"})
    assert "unknown file search session" in stopped["error"]["message"]


async def test_session_methods_need_the_experimental_capability(connect: Connect, tmp_path: Path) -> None:
    client = await connect()
    reply = await client.call("fuzzyFileSearch/sessionStart", {"sessionId": "s", "roots": [str(tmp_path)]})
    assert "experimentalApi" in reply["error"]["message"]
