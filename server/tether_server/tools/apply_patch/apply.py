"""Verifying a whole patch against the disk, then writing it (core.md §4.3).

Planning reads through an overlay of the changes planned so far, so several hunks touching
the same file compose, and nothing is written until every hunk has been verified.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path

from tether_server.tools.apply_patch.diff import unified_diff
from tether_server.tools.apply_patch.model import (
    AddFile,
    DeleteFile,
    Hunk,
    PatchApplyError,
    PatchOutsideRootsError,
    PlannedChange,
    UpdateFile,
)
from tether_server.tools.apply_patch.replace import apply_chunks
from tether_server.tools.apply_patch.roots import OUTSIDE_ROOTS_REASON, paths_outside
from tether_server.tools.apply_patch.writer import WriteGuard, remove_file, resolve_target, write_file


def os_error_text(exc: OSError) -> str:
    """Render an OS error the way the Rust original does: `No such file … (os error 2)`."""
    if exc.errno is None:
        return str(exc)
    return f"{os.strerror(exc.errno)} (os error {exc.errno})"


class _Overlay:
    """The file system as it will be once the changes planned so far are written."""

    def __init__(self) -> None:
        self._files: dict[Path, str | None] = {}

    def read(self, path: Path) -> str:
        if path in self._files:
            content = self._files[path]
            if content is None:
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT))
            return content
        return read_regular(path).decode("utf-8")

    def peek(self, path: Path) -> str | None:
        try:
            return self.read(path)
        except (OSError, UnicodeDecodeError):
            return None

    def write(self, path: Path, content: str | None) -> None:
        self._files[path] = content


def read_regular(path: Path) -> bytes:
    """The bytes of a regular file; a FIFO or device is refused instead of blocking the daemon."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as file:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, "not a regular file")
        return file.read()


def _read(overlay: _Overlay, path: Path, context: str) -> str:
    try:
        return overlay.read(path)
    except OSError as exc:
        raise PatchApplyError(f"{context} {path}: {os_error_text(exc)}") from exc
    except UnicodeDecodeError as exc:
        raise PatchApplyError(f"{context} {path}: stream did not contain valid UTF-8") from exc


def _plan_add(hunk: AddFile, path: Path, overlay: _Overlay) -> PlannedChange:
    old = overlay.peek(path)
    overlay.write(path, hunk.contents)
    return PlannedChange(
        path, "add", None, old, hunk.contents, unified_diff(old or "", hunk.contents), hunk.path
    )


def _plan_delete(hunk: DeleteFile, path: Path, overlay: _Overlay) -> PlannedChange:
    old = _read(overlay, path, "Failed to read")
    overlay.write(path, None)
    return PlannedChange(path, "delete", None, old, None, unified_diff(old, ""), hunk.path)


def _plan_update(hunk: UpdateFile, path: Path, cwd: Path, overlay: _Overlay) -> PlannedChange:
    old = _read(overlay, path, "Failed to read file to update")
    new = apply_chunks(old, hunk.chunks, path)
    move_path = None if hunk.move_path is None else cwd / hunk.move_path
    if move_path is not None:
        overlay.write(path, None)
    overlay.write(move_path or path, new)
    diff = unified_diff(old, new)
    return PlannedChange(path, "update", move_path, old, new, diff, hunk.path, hunk.move_path)


def plan_patch(
    hunks: Sequence[Hunk], cwd: Path, writable_roots: Sequence[Path] | None
) -> list[PlannedChange]:
    """Verify every hunk and compute the resulting contents, writing nothing.

    Args:
        hunks: parsed hunks (see `parse_patch`).
        cwd: absolute directory relative paths resolve against (for `cd dir && apply_patch`,
            pass `cwd / dir`).
        writable_roots: absolute roots every target and move destination must stay inside;
            None means no restriction.

    Returns:
        One change per hunk, in patch order.

    Raises:
        PatchApplyError: a target is missing/unreadable or a chunk's lines are not found.
        PatchOutsideRootsError: all hunks verified but a path escapes `writable_roots`.
    """
    overlay = _Overlay()
    changes: list[PlannedChange] = []
    for hunk in hunks:
        path = cwd / hunk.path
        if isinstance(hunk, AddFile):
            changes.append(_plan_add(hunk, path, overlay))
        elif isinstance(hunk, DeleteFile):
            changes.append(_plan_delete(hunk, path, overlay))
        else:
            changes.append(_plan_update(hunk, path, cwd, overlay))
    if writable_roots is not None:
        _check_roots(changes, writable_roots)
    return changes


def _check_roots(changes: Sequence[PlannedChange], roots: Sequence[Path]) -> None:
    targets = [p for c in changes for p in (c.path, c.move_path) if p is not None]
    outside = paths_outside(targets, roots)
    if outside:
        raise PatchOutsideRootsError(OUTSIDE_ROOTS_REASON, tuple(outside))


Landing = Callable[[Path, bool], Path]
"""(path as planned, keep_link) → the canonical path to write or unlink (see `writer`)."""


def _resolve_now(path: Path, keep_link: bool) -> Path:
    return resolve_target(path, keep_link=keep_link)


def _apply_one(change: PlannedChange, land: Landing, guard: WriteGuard) -> None:
    if change.kind == "delete":
        where = land(change.path, True)
        _guarded(lambda: remove_file(where, guard), f"Failed to delete file {change.path}")
        return
    target = change.move_path or change.path
    data = (change.new_content or "").encode("utf-8")
    where = land(target, False)
    _guarded(lambda: write_file(where, data, guard), f"Failed to write file {target}")
    if change.move_path is not None and change.move_path != change.path:
        source = land(change.path, True)
        _guarded(lambda: remove_file(source, guard), f"Failed to remove original {change.path}")


def _guarded(action: Callable[[], object], context: str) -> None:
    try:
        action()
    except OSError as exc:
        raise PatchApplyError(f"{context}: {os_error_text(exc)}") from exc


def apply_planned(
    changes: Sequence[PlannedChange], land: Landing | None = None, guard: WriteGuard | None = None
) -> None:
    """Write planned changes in order, creating parent directories.

    Every write walks directory fds without following symlinks (see `writer`). Not transactional
    on I/O failure: earlier changes stay written (as in Codex).

    Args:
        changes: from `plan_patch`.
        land: the canonical path each target was checked at (`PatchBoundary.check`); by default
            each is resolved now, which suits callers that enforce no boundary.
        guard: identities never to enter or overwrite.

    Raises:
        PatchApplyError: an I/O failure, with the file named, or a symlink or protected path met
            on the way.
    """
    for change in changes:
        _apply_one(change, land or _resolve_now, guard or WriteGuard())
