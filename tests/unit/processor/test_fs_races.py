"""`fs/*` against a directory swapped for a symlink between the path check and its use.

A sandboxed command can do this to the workspace while a client works on it (the link's target
needs no access: it is only a string). Another process exchanges a real directory `ws/d` with a
symlink to the daemon's home, atomically and as fast as it can (`renameat2(RENAME_EXCHANGE)`),
while the client repeats one `fs/*` call on `ws/d/...`. The home must never be reached.
"""

from __future__ import annotations

import base64
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.memory import MemoryClient
from tests.unit.processor.conftest import Connect

ATTEMPTS = 600
BUDGET_S = 20.0
_SWAPPER = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = (os.fsencode(p) for p in sys.argv[1:3])
print("ready", flush=True)
while True:
    libc.renameat2(-100, a, -100, b, 2)  # AT_FDCWD, RENAME_EXCHANGE
"""


@pytest.fixture
def swapped(tmp_path: Path) -> Iterator[tuple[Path, int, Path]]:
    """`ws/d` (a real directory, opened here as the returned descriptor) and `ws/x` (a symlink to
    the home) trade places without pause; yields (ws/d, the real directory's fd, home)."""
    home = tmp_path / "home"
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "d").mkdir()
    (ws / "x").symlink_to(home)
    real = os.open(ws / "d", os.O_RDONLY | os.O_DIRECTORY)
    proc = subprocess.Popen(
        [sys.executable, "-c", _SWAPPER, str(ws / "d"), str(ws / "x")], stdout=subprocess.PIPE
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
        yield ws / "d", real, home
    finally:
        proc.kill()
        proc.wait()
        assert proc.stdout is not None
        proc.stdout.close()
        os.close(real)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _put(dir_fd: int, name: str, data: bytes) -> None:
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644, dir_fd=dir_fd)
    os.write(fd, data)
    os.close(fd)


async def _attempts(client: MemoryClient, method: str, params: dict[str, Any], before: object = None) -> None:
    deadline = time.monotonic() + BUDGET_S
    for _ in range(ATTEMPTS):
        if callable(before):
            before()
        await client.call(method, params)
        if time.monotonic() > deadline:
            break


async def test_remove_never_removes_a_file_in_the_home(
    connect: Connect, swapped: tuple[Path, int, Path]
) -> None:
    d, real, home = swapped
    (home / "victim").write_text("private")
    client = await connect()
    await _attempts(client, "fs/remove", {"path": str(d / "victim")}, lambda: _put(real, "victim", b"w"))
    assert (home / "victim").read_text() == "private"


async def test_write_file_never_writes_into_the_home(
    connect: Connect, swapped: tuple[Path, int, Path]
) -> None:
    d, _real, home = swapped
    client = await connect()
    await _attempts(client, "fs/writeFile", {"path": str(d / "note"), "dataBase64": _b64(b"owned")})
    landed = [p.name for p in home.iterdir() if p.name != "tether.sqlite"]
    assert landed == [], "nothing lands in the home"


async def test_create_directory_never_creates_in_the_home(
    connect: Connect, swapped: tuple[Path, int, Path]
) -> None:
    d, real, home = swapped

    def fresh() -> None:
        with contextlib.suppress(FileNotFoundError):
            os.rmdir("sub", dir_fd=real)

    client = await connect()
    await _attempts(client, "fs/createDirectory", {"path": str(d / "sub"), "recursive": False}, fresh)
    await _attempts(client, "fs/createDirectory", {"path": str(d / "deep" / "er")}, fresh)
    assert not (home / "sub").exists() and not (home / "deep").exists()


async def test_read_directory_never_lists_the_home(connect: Connect, swapped: tuple[Path, int, Path]) -> None:
    d, _real, home = swapped
    (home / "secret-name").write_text("x")
    client = await connect()
    mark = client.mark()
    await _attempts(client, "fs/readDirectory", {"path": str(d)})
    listed = [m for m in client.since(mark) if "result" in m]
    assert listed, "some listings of the real directory went through"
    assert not [m for m in listed if "secret-name" in str(m["result"])]


async def test_copy_never_copies_a_file_out_of_the_home(
    connect: Connect, swapped: tuple[Path, int, Path], tmp_path: Path
) -> None:
    d, real, home = swapped
    (home / "token").write_text("private-token")
    _put(real, "token", b"public")
    out = tmp_path / "out"
    (tmp_path / "src.txt").write_text("planted")
    client = await connect()

    def fresh() -> None:
        out.unlink(missing_ok=True)

    await _attempts(client, "fs/copy", {"sourcePath": str(d / "token"), "destinationPath": str(out)}, fresh)
    await _attempts(
        client, "fs/copy", {"sourcePath": str(tmp_path / "src.txt"), "destinationPath": str(d / "planted")}
    )
    assert not (home / "planted").exists()
    assert not out.exists() or out.read_text() == "public"


async def test_get_metadata_never_describes_a_file_in_the_home(
    connect: Connect, swapped: tuple[Path, int, Path]
) -> None:
    d, real, home = swapped
    (home / "probe").mkdir()
    _put(real, "probe", b"a file here")
    client = await connect()
    mark = client.mark()
    await _attempts(client, "fs/getMetadata", {"path": str(d / "probe")})
    answers = [m["result"] for m in client.since(mark) if "result" in m]
    assert answers and not [a for a in answers if a["isDirectory"]]


async def test_watch_never_watches_the_home(connect: Connect, swapped: tuple[Path, int, Path]) -> None:
    d, real, home = swapped
    client = await connect()
    for i in range(60):
        for _ in range(ATTEMPTS // 60):
            reply = await client.call("fs/watch", {"path": str(d), "watchId": f"w{i}"})
            if "result" in reply:
                break
    mark = client.mark()
    (home / "leak-marker").write_text("x")
    _put(real, "fine", b"x")
    await client.wait_for(
        lambda m: m.get("method") == "fs/changed" and "fine" in str(m["params"]), after=mark
    )
    await client.request("fs/getMetadata", {"path": str(home.parent)})
    assert not [m for m in client.since(mark) if "leak-marker" in str(m)]
