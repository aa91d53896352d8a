"""Capturing file contents around a patch, to feed `turn_diff`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from tether_server.tools.apply_patch.apply import read_regular
from tether_server.tools.apply_patch.model import PlannedChange


def touched_paths(changes: Sequence[PlannedChange]) -> list[Path]:
    """Every absolute path the changes write or remove (move destinations included), without repeats."""
    paths: list[Path] = []
    for change in changes:
        for path in (change.path, change.move_path):
            if path is not None and path not in paths:
                paths.append(path)
    return paths


def read_snapshot(paths: Iterable[Path]) -> dict[Path, str | None]:
    """Current text of each path; None when it is absent, not a regular file or not UTF-8 text."""
    snapshot: dict[Path, str | None] = {}
    for path in paths:
        try:
            snapshot[path] = read_regular(path).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            snapshot[path] = None
    return snapshot
