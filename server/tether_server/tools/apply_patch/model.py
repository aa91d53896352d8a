"""The parsed shape of a patch and the errors the engine raises.

Every error's `str()` is the exact text the model is shown after the
`apply_patch verification failed: ` prefix, so callers never reformat it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal


class PatchError(Exception):
    """Base of the engine's errors; `message` is the model-facing text."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class PatchParseError(PatchError):
    """The patch text does not follow the grammar."""


class PatchApplyError(PatchError):
    """A file is missing, unreadable, or its expected lines cannot be found."""


class PatchRefusedError(PatchError):
    """A target is one of the daemon's private paths: refused whatever the approval policy."""


class PatchOutsideRootsError(PatchError):
    """A touched path (or move destination) lies outside every writable root."""

    def __init__(self, message: str, paths: tuple[Path, ...]) -> None:
        super().__init__(message)
        self.paths = paths


@dataclass(frozen=True)
class UpdateChunk:
    """One `@@` section of an update: lines to find (`old_lines`) and their replacement."""

    change_context: str | None
    old_lines: tuple[str, ...]
    new_lines: tuple[str, ...]
    is_end_of_file: bool = False


@dataclass(frozen=True)
class AddFile:
    """`*** Add File: path` with the full new contents (each line ends with a newline)."""

    path: str
    contents: str


@dataclass(frozen=True)
class DeleteFile:
    """`*** Delete File: path`."""

    path: str


@dataclass(frozen=True)
class UpdateFile:
    """`*** Update File: path`, optionally renamed to `move_path`."""

    path: str
    move_path: str | None
    chunks: tuple[UpdateChunk, ...] = field(default_factory=tuple)


Hunk = AddFile | DeleteFile | UpdateFile

ChangeKind = Literal["add", "delete", "update"]


@dataclass(frozen=True)
class PlannedChange:
    """One verified file operation, ready to be written.

    `path`/`move_path` are absolute; `display_path`/`display_move_path` are spelled as in
    the patch (the success summary uses them). `unified_diff` is the hunks-only diff with one
    line of context, the form a `fileChange` item carries for updates.
    """

    path: Path
    kind: ChangeKind
    move_path: Path | None
    old_content: str | None
    new_content: str | None
    unified_diff: str
    display_path: str
    display_move_path: str | None = None
