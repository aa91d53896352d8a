"""The history of external-agent imports: `$TETHER_HOME/external_agent_imports.json`, newest last.

A small JSON file rewritten whole (temporary file, fsync, rename) under an exclusive `flock`, so a
crash leaves the old history or the new one, and two daemons on one home do not lose entries.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any

from tether_server.private_file import write_atomic

FILE = "external_agent_imports.json"


def _path(home: Path) -> Path:
    return home / FILE


def read(home: Path) -> list[dict[str, Any]]:
    """Every recorded import, oldest first (an unreadable file reads as none)."""
    try:
        data = json.loads(_path(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [entry for entry in data if isinstance(entry, dict)] if isinstance(data, list) else []


def append(home: Path, entry: dict[str, Any]) -> None:
    """Add one import to the history."""
    path = _path(home)
    fd = os.open(path.with_name(FILE + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        write_atomic(path, json.dumps([*read(home), entry], ensure_ascii=False), 0o600)
    finally:
        os.close(fd)
