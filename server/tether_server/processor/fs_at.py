"""Directory-descriptor file work for `fs_ops`: what is checked is what is used.

A path checked by the `fs_rules` and then used by name can be redirected between the two: a
directory on the way swapped for a symlink (a sandboxed command can do that inside the workspace;
the link's target needs no access) sends a remove, write or listing into the daemon's home. So a
directory is opened once, the place actually opened is checked (its `/proc/self/fd` name), and
everything after works relative to that descriptor with the last component never followed
(`O_NOFOLLOW`, `*at` calls), or walks down from `/` without following anything.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

from tether_server.errors import InvalidRequest
from tether_server.processor import fs_rules

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NONBLOCK | os.O_CLOEXEC
_CHILD_DIR = DIR_FLAGS | os.O_NOFOLLOW
READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC
# O_NONBLOCK: opening a FIFO for writing fails at once (ENXIO) instead of waiting for a reader.
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_CHUNK = 1 << 20


def where(fd: int) -> str:
    """Where an open descriptor really is, whatever its path meant when it was opened."""
    return os.readlink(f"/proc/self/fd/{fd}")


def open_dir(path: str, private: list[Path], *, tree: bool = False) -> int:
    """Open the directory `path` (symlinks followed) and check the place actually opened."""
    fd = os.open(path, DIR_FLAGS)
    try:
        fs_rules.check(where(fd), private, tree=tree)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_parent(path: str, private: list[Path], *, tree: bool = False) -> tuple[int, str]:
    """(the opened, checked parent of `path`, its last component); `parent/name` is checked too,
    with `tree` as a tree that must hold no private path."""
    parent, name = os.path.split(path)
    if not name:
        raise InvalidRequest(f"refusing to operate on the root directory: {path}")
    fd = open_dir(parent, private)
    try:
        fs_rules.check(os.path.join(where(fd), name), private, tree=tree)
    except BaseException:
        os.close(fd)
        raise
    return fd, name


def make_dirs(real: str, private: list[Path]) -> None:
    """Create the resolved, checked directory `real` and its missing parents, walking down from `/`
    without following a link: a component swapped for one since the check fails the walk."""
    fd = os.open("/", DIR_FLAGS)
    try:
        for part in Path(real).parts[1:]:
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, dir_fd=fd)
            child = os.open(part, _CHILD_DIR, dir_fd=fd)
            os.close(fd)
            fd = child
        fs_rules.check(where(fd), private)
    finally:
        os.close(fd)


def replace(dir_fd: int, name: str, data: bytes, mode: int) -> None:
    """Write `data` to a new file in `dir_fd`, fsync it, rename it over `name`."""
    tmp = f".{name}.{secrets.token_hex(6)}.tmp"
    fd = os.open(tmp, _WRITE_FLAGS | os.O_EXCL, 0o600, dir_fd=dir_fd)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        os.rename(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise
    os.fsync(dir_fd)


def open_source(path: str, private: list[Path]) -> tuple[int, os.stat_result]:
    """Open a copy's source (a regular file or a directory, never a final link), checked as a tree."""
    if not _copyable(os.lstat(path)):
        raise InvalidRequest(f"not a regular file or directory: {path}")
    # Looked at before opening: opening a FIFO or a device can block, or has side effects.
    fd = os.open(path, READ_FLAGS)
    try:
        info = os.fstat(fd)
        if not _copyable(info):
            raise InvalidRequest(f"not a regular file or directory: {path}")
        fs_rules.check(where(fd), private, tree=True)
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def _copyable(info: os.stat_result) -> bool:
    return stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)


def copy_file(src_fd: int, dir_fd: int, name: str, shown: str) -> None:
    """Copy the open regular file `src_fd` to `name` in `dir_fd` (a link there is not followed)."""
    info = os.fstat(src_fd)
    if not stat.S_ISREG(info.st_mode):
        raise InvalidRequest(f"not a regular file: {shown}")
    mode = stat.S_IMODE(info.st_mode)
    out = os.open(name, _WRITE_FLAGS, mode, dir_fd=dir_fd)
    try:
        if not stat.S_ISREG(os.fstat(out).st_mode):
            raise InvalidRequest(f"not a regular file: {name}")
        os.ftruncate(out, 0)
        os.lseek(src_fd, 0, os.SEEK_SET)
        while chunk := os.read(src_fd, _CHUNK):
            view = memoryview(chunk)
            while view:
                view = view[os.write(out, view) :]
        os.fchmod(out, mode)
    finally:
        os.close(out)


def copy_tree(src_fd: int, dir_fd: int, name: str, shown: str) -> None:
    """Copy the open directory `src_fd` to a new `name` in `dir_fd`: links as links (their targets
    are not read), regular files and directories; anything else is refused."""
    os.mkdir(name, 0o700, dir_fd=dir_fd)
    out = os.open(name, _CHILD_DIR, dir_fd=dir_fd)
    try:
        with os.scandir(src_fd) as listing:
            names = [entry.name for entry in listing]
        for child in names:
            _copy_entry(src_fd, out, child, f"{shown}/{child}")
        os.fchmod(out, stat.S_IMODE(os.fstat(src_fd).st_mode))
    finally:
        os.close(out)


def _copy_entry(src_dir: int, out_dir: int, name: str, shown: str) -> None:
    info = os.stat(name, dir_fd=src_dir, follow_symlinks=False)
    if stat.S_ISLNK(info.st_mode):
        os.symlink(os.readlink(name, dir_fd=src_dir), name, dir_fd=out_dir)
        return
    if not _copyable(info):
        raise InvalidRequest(f"not a regular file: {shown}")
    fd = os.open(name, _CHILD_DIR if stat.S_ISDIR(info.st_mode) else READ_FLAGS, dir_fd=src_dir)
    try:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            copy_tree(fd, out_dir, name, shown)
        else:
            copy_file(fd, out_dir, name, shown)
    finally:
        os.close(fd)
