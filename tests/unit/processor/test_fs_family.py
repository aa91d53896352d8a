"""The `fs/*` family in process: what a client can do to host files, and what it cannot reach."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import pytest
from tests.support.memory import MemoryClient
from tests.unit.processor.conftest import Connect

from tether_protocol.errors import ErrorCode


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


async def _error(client: MemoryClient, method: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = await client.call(method, params)
    assert "error" in reply, reply
    error: dict[str, Any] = reply["error"]
    return error


async def test_write_read_list_metadata_copy_and_remove_a_tree(connect: Connect, tmp_path: Path) -> None:
    client = await connect()
    root = tmp_path / "work"
    await client.request("fs/createDirectory", {"path": str(root / "a" / "b")})
    target = root / "a" / "b" / "note.txt"
    await client.request("fs/writeFile", {"path": str(target), "dataBase64": _b64(b"first")})
    target.chmod(0o640)
    await client.request("fs/writeFile", {"path": str(target), "dataBase64": _b64(b"second")})
    assert target.read_bytes() == b"second"
    assert target.stat().st_mode & 0o777 == 0o640, "a rewrite keeps the file's mode"
    assert [p.name for p in target.parent.iterdir()] == ["note.txt"], "no temporary file is left"

    read = await client.request("fs/readFile", {"path": str(target)})
    assert base64.b64decode(read["dataBase64"]) == b"second"
    listing = await client.request("fs/readDirectory", {"path": str(root / "a")})
    assert listing == {"entries": [{"fileName": "b", "isDirectory": True, "isFile": False}]}
    meta = await client.request("fs/getMetadata", {"path": str(target)})
    assert (meta["isFile"], meta["isDirectory"], meta["isSymlink"]) == (True, False, False)
    assert abs(meta["modifiedAtMs"] - target.stat().st_mtime * 1000) < 1000

    copied = tmp_path / "copy"
    no_recursive = await _error(client, "fs/copy", {"sourcePath": str(root), "destinationPath": str(copied)})
    assert "recursive" in no_recursive["message"] and not copied.exists()
    await client.request(
        "fs/copy", {"sourcePath": str(root), "destinationPath": str(copied), "recursive": True}
    )
    assert (copied / "a" / "b" / "note.txt").read_bytes() == b"second"

    await client.request("fs/remove", {"path": str(root)})
    assert not root.exists() and copied.exists()
    await client.request("fs/remove", {"path": str(root)})  # force defaults to true
    missing = await _error(client, "fs/remove", {"path": str(root), "force": False})
    assert missing["code"] == ErrorCode.INTERNAL_ERROR and "os error 2" in missing["message"]
    not_empty = await _error(client, "fs/remove", {"path": str(copied), "recursive": False})
    assert "os error 39" in not_empty["message"] and copied.exists()


async def test_the_daemons_private_files_and_its_own_proc_entries_are_out_of_reach(
    connect: Connect, tmp_path: Path
) -> None:
    client = await connect()
    home = tmp_path / "home"
    assert home.is_dir()
    secret = home / "planted.txt"
    secret.write_text("private")
    link = tmp_path / "innocent-link"
    link.symlink_to(home)
    attempts: list[tuple[str, dict[str, Any]]] = [
        ("fs/readFile", {"path": str(link / "planted.txt")}),
        ("fs/writeFile", {"path": str(link / "planted.txt"), "dataBase64": _b64(b"owned")}),
        ("fs/writeFile", {"path": str(home / "new.txt"), "dataBase64": _b64(b"owned")}),
        ("fs/readDirectory", {"path": str(link)}),
        ("fs/getMetadata", {"path": str(secret)}),
        ("fs/copy", {"sourcePath": str(tmp_path), "destinationPath": "/tmp/x", "recursive": True}),
        ("fs/copy", {"sourcePath": str(link / "planted.txt"), "destinationPath": str(tmp_path / "out")}),
        ("fs/remove", {"path": str(tmp_path)}),
        ("fs/remove", {"path": str(link / "planted.txt")}),
        ("fs/createDirectory", {"path": str(link / "sub")}),
        ("fs/watch", {"path": str(home), "watchId": "w"}),
        ("fs/readFile", {"path": "/proc/self/environ"}),
        ("fs/readFile", {"path": f"/proc/{os.getpid()}/environ"}),
        ("fs/readDirectory", {"path": "/proc/self/fd"}),
    ]
    for method, params in attempts:
        error = await _error(client, method, params)
        assert error["code"] == ErrorCode.INVALID_REQUEST and "access denied" in error["message"], (
            method,
            params,
            error,
        )
    assert secret.read_text() == "private" and not (home / "new.txt").exists()
    assert not (home / "sub").exists() and not (tmp_path / "out").exists()
    assert tmp_path.is_dir()


async def test_bad_paths_are_refused_with_clear_errors_and_change_nothing(
    connect: Connect, tmp_path: Path
) -> None:
    client = await connect()
    nul = await _error(client, "fs/writeFile", {"path": f"{tmp_path}/a\u0000b", "dataBase64": ""})
    assert nul["code"] == ErrorCode.INVALID_PARAMS
    relative = await _error(client, "fs/createDirectory", {"path": "relative/dir"})
    assert relative["message"] == "Invalid request: AbsolutePathBuf deserialized without a base path"
    bad = await _error(client, "fs/writeFile", {"path": str(tmp_path / "f"), "dataBase64": "@@not base64"})
    assert bad["code"] == ErrorCode.INVALID_PARAMS and not (tmp_path / "f").exists()

    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "kept").write_text("kept")
    on_dir = await _error(client, "fs/writeFile", {"path": str(folder), "dataBase64": _b64(b"x")})
    assert "is a directory" in on_dir["message"] and (folder / "kept").read_text() == "kept"

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    # Opening a FIFO for reading blocks until a writer comes: these must answer at once.
    assert "not a regular file" in (await _error(client, "fs/readFile", {"path": str(fifo)}))["message"]
    copy = await _error(client, "fs/copy", {"sourcePath": str(fifo), "destinationPath": str(tmp_path / "c")})
    assert "not a regular file" in copy["message"] and not (tmp_path / "c").exists()
    over = await _error(client, "fs/writeFile", {"path": str(fifo), "dataBase64": _b64(b"x")})
    assert "not a regular file" in over["message"]


async def test_removing_a_tree_removes_links_in_it_but_never_what_they_point_to(
    connect: Connect, tmp_path: Path
) -> None:
    client = await connect()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.txt").write_text("keep me")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "link-to-dir").symlink_to(outside, target_is_directory=True)
    top_link = tmp_path / "top-link"
    top_link.symlink_to(outside, target_is_directory=True)

    await client.request("fs/remove", {"path": str(tree)})
    await client.request("fs/remove", {"path": str(top_link), "recursive": True})
    assert not tree.exists() and not top_link.is_symlink()
    assert (outside / "precious.txt").read_text() == "keep me"


async def test_a_link_to_etc_reads_like_etc_but_copies_as_a_link(connect: Connect, tmp_path: Path) -> None:
    client = await connect()
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "etc").symlink_to("/etc")
    meta = await client.request("fs/getMetadata", {"path": str(tree / "etc")})
    assert (meta["isSymlink"], meta["isDirectory"]) == (True, True)
    await client.request(
        "fs/copy", {"sourcePath": str(tree), "destinationPath": str(tmp_path / "dup"), "recursive": True}
    )
    assert os.readlink(tmp_path / "dup" / "etc") == "/etc"
    into_itself = await _error(
        client, "fs/copy", {"sourcePath": str(tree), "destinationPath": str(tree / "in"), "recursive": True}
    )
    assert "into itself" in into_itself["message"]


async def test_watch_sends_changes_to_the_watching_connection_only(connect: Connect, tmp_path: Path) -> None:
    watcher, other = await connect(), await connect()
    watched, elsewhere = tmp_path / "watched", tmp_path / "elsewhere"
    watched.mkdir()
    elsewhere.mkdir()
    answer = await watcher.request("fs/watch", {"path": str(watched), "watchId": "w1"})
    assert answer == {"path": str(watched.resolve())}
    await other.request("fs/watch", {"path": str(elsewhere), "watchId": "w1"})
    duplicate = await _error(watcher, "fs/watch", {"path": str(watched), "watchId": "w1"})
    assert "already in use" in duplicate["message"]

    mark = watcher.mark()
    (watched / "new.txt").write_text("hello")
    changed = await watcher.notification("fs/changed", after=mark)
    assert changed["params"]["watchId"] == "w1"
    assert str(watched.resolve() / "new.txt") in changed["params"]["changedPaths"]
    # The other connection's outbox is in order: a reply after the change means nothing was sent before.
    await other.request("fs/getMetadata", {"path": str(elsewhere)})
    assert not [m for m in other.messages if m.get("method") == "fs/changed"]

    await watcher.request("fs/unwatch", {"watchId": "w1"})
    unknown = await _error(watcher, "fs/unwatch", {"watchId": "w1"})
    assert "unknown watch id" in unknown["message"]
    (watched / "after.txt").write_text("x")
    (elsewhere / "seen.txt").write_text("x")
    # The other watch still fires; by then an event for the ended watch would have been sent too.
    await other.notification("fs/changed")
    await watcher.request("fs/getMetadata", {"path": str(watched)})
    sent = [m["params"]["changedPaths"] for m in watcher.since(mark) if m.get("method") == "fs/changed"]
    assert not [paths for paths in sent if str(watched.resolve() / "after.txt") in paths]


async def test_a_file_watch_sees_a_replace_by_rename(connect: Connect, tmp_path: Path) -> None:
    client = await connect()
    target = tmp_path / "config.toml"
    target.write_text("a")
    await client.request("fs/watch", {"path": str(target), "watchId": "f"})
    mark = client.mark()
    (tmp_path / "unrelated").write_text("noise")
    await client.request("fs/writeFile", {"path": str(target), "dataBase64": _b64(b"b")})
    changed = await client.notification("fs/changed", after=mark)
    assert changed["params"]["changedPaths"] == [str(target)]


@pytest.mark.parametrize("method", ["fs/watch", "fs/getMetadata", "fs/readDirectory"])
async def test_a_missing_path_is_an_io_error(connect: Connect, tmp_path: Path, method: str) -> None:
    client = await connect()
    error = await _error(client, method, {"path": str(tmp_path / "missing"), "watchId": "m"})
    assert error["code"] == ErrorCode.INTERNAL_ERROR and "os error 2" in error["message"]
