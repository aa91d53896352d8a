"""`$TETHER_HOME` is private: created 0700, its database files 0600, a writable-by-others home refused.

The attacks: another local user reads every conversation from a 0644 database, or plants files (a
rules file, a socket) in a home they can write to.
"""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

from tests.conftest import StartServer
from tests.support.appserver import WAIT_S


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_a_new_home_is_0700_and_the_database_wal_and_shm_are_0600(
    start_server: StartServer, tmp_path: Path, workdir: Path
) -> None:
    home = tmp_path / "fresh" / "tether-home"
    old = os.umask(0o022)  # the daemon inherits a permissive umask, as from a login shell
    try:
        server = await start_server(home=tmp_path / "logs", env={"TETHER_HOME": str(home)})
    finally:
        os.umask(old)
    await server.request("thread/start", {"cwd": str(workdir)})

    assert _mode(home) == 0o700
    files = {p.name: _mode(p) for p in home.iterdir() if p.name.startswith("tether.sqlite")}
    assert set(files) >= {"tether.sqlite", "tether.sqlite-wal", "tether.sqlite-shm"}
    assert all(mode == 0o600 for mode in files.values()), files


async def test_an_existing_home_and_database_are_narrowed(start_server: StartServer, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o755)
    home.chmod(0o755)
    db = home / "tether.sqlite"
    db.touch()
    db.chmod(0o644)

    server = await start_server(home=home)
    # The stdio front may answer `initialize` before the home is opened (it reads nothing there);
    # the first request the full server answers comes after the narrowing.
    await server.request("thread/loaded/list", {})

    assert _mode(home) == 0o700
    assert _mode(db) == 0o600


async def test_a_world_writable_home_refuses_to_start(start_server: StartServer, tmp_path: Path) -> None:
    home = tmp_path / "shared"
    home.mkdir()
    home.chmod(0o777)

    server = await start_server(home=home, initialize=False)
    async with asyncio.timeout(WAIT_S):
        code = await server.proc.wait()

    assert code == 2
    assert f"refusing to start: TETHER_HOME {home} is group- or world-writable (mode 0777)" in server.stderr()
    assert not (home / "tether.sqlite").exists()
