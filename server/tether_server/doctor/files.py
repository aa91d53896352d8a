"""Checks of the home directory, the files in it and the database (read-only: nothing is changed)."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from tether_server.doctor import catalog
from tether_server.doctor.report import Check, ok, skip
from tether_server.store.migrations import SCHEMA_VERSION

DB_FILE = "tether.sqlite"
_PRIVATE_FILES = ("tether.sqlite", "tether.sqlite-wal", "tether.sqlite-shm", "config.toml")


def exposed(paths: list[Path]) -> list[Path]:
    """The regular files among `paths` that group or others may read or write."""
    found = []
    for path in paths:
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and info.st_mode & 0o077:
            found.append(path)
    return found


def check_home(home: Path) -> Check:
    try:
        info = os.stat(home)
    except FileNotFoundError:
        return ok("home", f"{home} does not exist yet (the first start creates it, mode 0700)")
    except OSError as exc:
        return catalog.HOME_NOT_DIR.found(f"{home} cannot be inspected: {exc.strerror}", home=home)
    mode = stat.S_IMODE(info.st_mode)
    details = {"home": str(home), "mode": f"{mode:04o}", "owner_uid": info.st_uid}
    if not stat.S_ISDIR(info.st_mode):
        return catalog.HOME_NOT_DIR.found(f"{home} is not a directory", details, home=home)
    if info.st_uid != os.geteuid():
        return catalog.HOME_NOT_OWNED.found(f"{home} belongs to uid {info.st_uid}", details, home=home)
    if mode & (stat.S_IWGRP | stat.S_IWOTH):
        return catalog.HOME_WRITABLE.found(f"{home} is mode {mode:04o}", details, home=home)
    if mode & 0o077:
        return catalog.HOME_READABLE.found(f"{home} is mode {mode:04o}", details, home=home)
    loose = exposed([home / name for name in _PRIVATE_FILES])
    if loose:
        names = " ".join(str(path) for path in loose)
        return catalog.FILE_EXPOSED.found(f"{names} can be read by other users", details, paths=names)
    return ok("home", f"{home} is private (mode {mode:04o})", details)


def check_database(home: Path) -> Check:
    path = home / DB_FILE
    if not path.exists():
        return skip("database", f"{path} does not exist yet (the daemon creates it)")
    size = sum(p.stat().st_size for p in (path, path.with_name(DB_FILE + "-wal")) if p.exists())
    details: dict[str, object] = {"path": str(path), "bytes": size}
    try:
        # Read-only and immutable=0: the daemon may be running; never create, migrate or checkpoint.
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5.0)
    except sqlite3.Error as exc:
        return catalog.DB_UNREADABLE.found(f"{path} cannot be opened: {exc}", details, path=path)
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        problems = [str(row[0]) for row in conn.execute("PRAGMA integrity_check(5)")]
    except sqlite3.DatabaseError as exc:
        return catalog.DB_CORRUPT.found(f"{path}: {exc}", details, path=path)
    finally:
        conn.close()
    details.update(schema_version=version, expected_schema_version=SCHEMA_VERSION, integrity=problems)
    if problems != ["ok"]:
        return catalog.DB_CORRUPT.found(
            f"{path} fails its integrity check: {problems[0]}", details, path=path
        )
    if version > SCHEMA_VERSION:
        summary = f"{path} has schema {version}; this Tether knows up to {SCHEMA_VERSION}"
        return catalog.DB_NEWER.found(summary, details)
    pending = "" if version == SCHEMA_VERSION else f", migrated to {SCHEMA_VERSION} at the next start"
    return ok("database", f"{path}: integrity ok, schema {version}{pending}, {_size(size)}", details)


def _size(size: int) -> str:
    amount = float(size)
    for unit in ("KiB", "MiB", "GiB"):
        amount /= 1024
        if amount < 1024 or unit == "GiB":
            return f"{amount:.1f} {unit}" if size >= 1024 else f"{size} bytes"
    return f"{size} bytes"
