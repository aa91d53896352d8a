"""Opening the SQLite database: connection settings, migrations, and clear errors when unusable."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import stat
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import aiosqlite

from tether_server import log
from tether_server.store.base import StoreError
from tether_server.store.migrations import MIGRATIONS, SCHEMA_VERSION
from tether_server.store.search_text import contains_folded

_log = log.get(__name__)
# SQL name of `contains_folded`, for the searches neither LIKE nor the trigram index can answer.
CONTAINS_FUNCTION = "tether_contains"
# The database, its WAL and its shared-memory index hold every conversation: owner-only.
_FILE_MODE = 0o600
_SIDE_FILES = ("-wal", "-shm", "-journal")


def describe_error(path: Path, exc: sqlite3.Error) -> str:
    """A startup message that names the file and says what is wrong with it."""
    text = str(exc)
    if "not a database" in text or "malformed" in text:
        return (
            f"database {path} is corrupt or not a SQLite database ({text}); "
            "move it aside to start with an empty one"
        )
    if "locked" in text or "busy" in text:
        return f"database {path} is locked by another process ({text})"
    if _read_only(path):
        return f"database {path} cannot be written: its file system is read-only ({text})"
    return f"database {path} cannot be used: {text}"


@contextlib.contextmanager
def immediate_transaction(db: sqlite3.Connection) -> Iterator[None]:
    """BEGIN IMMEDIATE … COMMIT on the database thread; on any error, ROLLBACK and re-raise."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
        db.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.OperationalError):
            db.execute("ROLLBACK")
        raise


def _read_only(path: Path) -> bool:
    """Whether a failed write was refused by a read-only file system (or, for a user other than
    root, by permissions): SQLite reports it only as "disk I/O error" or "readonly database"."""
    # Not an open/close of the file: closing any descriptor of it drops SQLite's POSIX locks.
    return not os.access(path, os.W_OK)


async def connect(path: Path, busy_timeout_ms: int) -> aiosqlite.Connection:
    """Open, configure and migrate the database at `path`.

    Raises:
        StoreError: the file cannot be opened, is corrupt or locked, or has a newer schema.
    """
    try:
        await asyncio.to_thread(_prepare_location, path)
        with _private_umask():
            conn = await aiosqlite.connect(path, isolation_level=None)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"database {path} cannot be opened: {exc}") from exc
    try:
        with _private_umask():
            # WAL mode creates the -wal and -shm files; SQLite gives them the database's mode.
            await _configure(conn, path, busy_timeout_ms)
            await _migrate(conn, path)
    except sqlite3.Error as exc:
        await conn.close()
        raise StoreError(describe_error(path, exc)) from exc
    except StoreError:
        await conn.close()
        raise
    return conn


@contextlib.contextmanager
def _private_umask() -> Iterator[None]:
    """umask 077 while SQLite may create files (process-wide, but only at start-up)."""
    old = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(old)


def _prepare_location(path: Path) -> None:
    """Create the database file 0600 before SQLite opens it, and narrow older files to 0600."""
    if path.is_dir():
        raise StoreError(f"database {path} is a directory, not a file")
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, _FILE_MODE)
    os.close(fd)
    for candidate in (path, *(path.with_name(path.name + suffix) for suffix in _SIDE_FILES)):
        with contextlib.suppress(FileNotFoundError):
            if stat.S_IMODE(candidate.stat().st_mode) & 0o077:
                candidate.chmod(_FILE_MODE)


async def _configure(conn: aiosqlite.Connection, path: Path, busy_timeout_ms: int) -> None:
    await conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    async with conn.execute("PRAGMA journal_mode = WAL") as cur:
        row = await cur.fetchone()
    if row is None or str(row[0]).lower() != "wal":
        _log.warning("store.wal_unavailable", path=str(path), journal_mode=row[0] if row else None)
    # In WAL mode, synchronous=NORMAL keeps every committed transaction across a process crash
    # (kill -9): the commit is in the WAL file, which the OS holds even if the process dies. Only
    # an OS crash or power loss can lose the last transactions (never corrupt the database).
    await conn.execute("PRAGMA synchronous = NORMAL")
    await conn.execute("PRAGMA foreign_keys = ON")
    await conn.create_function(CONTAINS_FUNCTION, 2, contains_folded, deterministic=True)


async def _user_version(conn: aiosqlite.Connection) -> int:
    async with conn.execute("PRAGMA user_version") as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else 0


async def _migrate(conn: aiosqlite.Connection, path: Path) -> None:
    target = SCHEMA_VERSION
    version = await _user_version(conn)
    _refuse_newer(path, version)
    if version >= target:
        return
    # IMMEDIATE takes the write lock first, so two processes opening at once migrate only once.
    await conn.execute("BEGIN IMMEDIATE")
    try:
        version = await _user_version(conn)
        _refuse_newer(path, version)
        for number in range(version + 1, target + 1):
            for statement in MIGRATIONS[number - 1]:
                await conn.execute(statement)
        await conn.execute(f"PRAGMA user_version = {target}")
        await conn.execute("COMMIT")
    except BaseException:
        await conn.execute("ROLLBACK")
        raise
    if version < target:
        _log.info("store.migrated", path=str(path), from_version=version, to_version=target)


def _refuse_newer(path: Path, version: int) -> None:
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"database {path} was created by a newer Tether (schema v{version}); "
            f"this version knows up to v{SCHEMA_VERSION}"
        )


async def fetch_all(conn: aiosqlite.Connection, sql: str, params: Iterable[Any]) -> list[Sequence[Any]]:
    """Every row `sql` reads on `conn` (the caller holds the store's lock)."""
    async with conn.execute(sql, tuple(params)) as cur:
        return list(await cur.fetchall())


# Connections kept open until the process ends (see `hold_wal_open`).
_held: list[sqlite3.Connection] = []


def hold_wal_open(path: Path) -> None:
    """Keep a reader on the WAL so the store's own close is not the last one on the file.

    The last connection to close checkpoints the WAL into the database and syncs it: 10 to 40 ms
    on a busy disk, all of it in a stdio daemon's exit. Every commit is already in the WAL (which
    outlives the process, as after a crash); the next open reads it. A process that does not end
    at once closes this reader when it is collected, and that close checkpoints as usual.
    """
    try:
        reader = sqlite3.connect(path)
        reader.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
    except sqlite3.Error:
        return  # the ordinary close then checkpoints
    _held.append(reader)
