"""Writing and removing files by walking directory fds, never following a symlink.

The daemon applies patches itself, outside bwrap, so a path checked against the boundary must
be the path written even if the model's commands race it: a directory swapped for a symlink
between the check and the write. Every component of the canonical path (resolved once, when it
was checked) is opened with `O_NOFOLLOW` relative to its parent's fd, so such a swap makes the
write fail instead of redirecting it; each opened directory is also compared by identity with
the guard's forbidden ones.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tether_server.tools.apply_patch.model import PatchApplyError

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: a FIFO planted at the target must not hang the daemon on open.
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK

Identity = tuple[int, int]


def identities(paths: Iterable[Path]) -> frozenset[Identity]:
    """(device, inode) of each existing path."""
    found: set[Identity] = set()
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            continue
        found.add((st.st_dev, st.st_ino))
    return frozenset(found)


def resolve_target(path: Path, *, keep_link: bool) -> Path:
    """The canonical path a write (or, with `keep_link`, an unlink) of `path` lands on.

    A write follows a symlink at the target, as a shell redirection would; an unlink removes the
    link itself, so only its directory is resolved.
    """
    lexical = Path(os.path.normpath(path))
    if keep_link:
        return Path(os.path.realpath(lexical.parent)) / lexical.name
    return Path(os.path.realpath(lexical))


@dataclass(frozen=True)
class WriteGuard:
    """Directories and files the writer refuses to enter or touch, by identity."""

    forbidden: frozenset[Identity] = field(default_factory=frozenset)

    def check(self, st: os.stat_result, path: Path) -> None:
        if (st.st_dev, st.st_ino) in self.forbidden:
            raise PatchApplyError(f"refusing to write {path}: it is a protected path")


def _refusal(exc: OSError, name: str, parent_fd: int, where: Path, target: Path) -> PatchApplyError | None:
    """A clear refusal when `exc` came from meeting a symlink (ELOOP, or ENOTDIR with O_DIRECTORY)."""
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        try:
            is_link = stat.S_ISLNK(os.stat(name, dir_fd=parent_fd, follow_symlinks=False).st_mode)
        except OSError:
            is_link = exc.errno == errno.ELOOP
        if is_link:
            return PatchApplyError(f"refusing to write {target}: {where} is a symbolic link")
    return None


def _open_dir(name: str, parent_fd: int, where: Path, target: Path, create: bool) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    except FileNotFoundError:
        if not create:
            raise
    except OSError as exc:
        refusal = _refusal(exc, name, parent_fd, where, target)
        if refusal is None:
            raise
        raise refusal from exc
    # Created concurrently? The O_NOFOLLOW open below decides whether it is usable.
    with contextlib.suppress(FileExistsError):
        os.mkdir(name, 0o777, dir_fd=parent_fd)
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    except OSError as exc:
        refusal = _refusal(exc, name, parent_fd, where, target)
        if refusal is None:
            raise
        raise refusal from exc


def _walk(directory: Path, guard: WriteGuard, target: Path, *, create: bool) -> int:
    """An fd for the absolute canonical `directory`, opened component by component."""
    if not directory.is_absolute():
        raise PatchApplyError(f"refusing to write {target}: not an absolute path")
    fd = os.open("/", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        guard.check(os.fstat(fd), Path("/"))
        where = Path("/")
        for name in directory.parts[1:]:
            where = where / name
            child = _open_dir(name, fd, where, target, create)
            os.close(fd)
            fd = child
            guard.check(os.fstat(fd), target)
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_file(path: Path, data: bytes, guard: WriteGuard) -> None:
    """Create or replace the regular file at canonical `path`, creating missing directories.

    Raises:
        PatchApplyError: a component is a symlink, or the target is protected or not a regular file.
        OSError: any other I/O failure.
    """
    parent = _walk(path.parent, guard, path, create=True)
    try:
        try:
            fd = os.open(path.name, _FILE_FLAGS, 0o666, dir_fd=parent)
        except OSError as exc:
            refusal = _refusal(exc, path.name, parent, path, path)
            if refusal is None:
                raise
            raise refusal from exc
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise PatchApplyError(f"refusing to write {path}: not a regular file")
            # Checked before truncating: a hard link to a protected file must stay intact.
            guard.check(st, path)
            os.ftruncate(fd, 0)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
    finally:
        os.close(parent)


def remove_file(path: Path, guard: WriteGuard) -> None:
    """Remove the file (or symlink) at `path`, whose directory is canonical.

    Raises:
        PatchApplyError: a component is a symlink or the target is protected.
        OSError: the target is a directory or missing, or any other I/O failure.
    """
    parent = _walk(path.parent, guard, path, create=False)
    try:
        st = os.stat(path.name, dir_fd=parent, follow_symlinks=False)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        guard.check(st, path)
        os.unlink(path.name, dir_fd=parent)
    finally:
        os.close(parent)
