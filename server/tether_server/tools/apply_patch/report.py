"""What the model and the client are told about an applied patch."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tether_server.tools.apply_patch.model import PlannedChange

SUCCESS_HEADER = "Success. Updated the following files:\n"


def summarize(changes: Sequence[PlannedChange]) -> str:
    """The success text the model receives: added, then modified (moves show the destination), then deleted.

    Paths are spelled as in the patch.
    """
    added = [c.display_path for c in changes if c.kind == "add"]
    modified = [c.display_move_path or c.display_path for c in changes if c.kind == "update"]
    deleted = [c.display_path for c in changes if c.kind == "delete"]
    lines = [f"A {p}\n" for p in added] + [f"M {p}\n" for p in modified] + [f"D {p}\n" for p in deleted]
    return SUCCESS_HEADER + "".join(lines)


def _absolute(path: Path, cwd: Path) -> str:
    return os.fspath(path if path.is_absolute() else cwd / path)


def _wire_one(change: PlannedChange, cwd: Path) -> dict[str, Any]:
    if change.kind == "update":
        move = None if change.move_path is None else _absolute(change.move_path, cwd)
        diff = change.unified_diff if move is None else f"{change.unified_diff}\n\nMoved to: {move}"
        return {
            "path": _absolute(change.path, cwd),
            "kind": {"type": "update", "move_path": move},
            "diff": diff,
        }
    content = change.new_content if change.kind == "add" else change.old_content
    return {"path": _absolute(change.path, cwd), "kind": {"type": change.kind}, "diff": content or ""}


def changes_to_wire(changes: Sequence[PlannedChange], cwd: Path) -> list[dict[str, Any]]:
    """The `changes` list of a `fileChange` item: `[{path, kind, diff}]` sorted by absolute path.

    For add the diff is the new content, for delete the old content, for update the hunks
    (one line of context). A later change to the same path replaces an earlier one.
    """
    by_path = {entry["path"]: entry for entry in (_wire_one(c, cwd) for c in changes)}
    return [by_path[path] for path in sorted(by_path)]
