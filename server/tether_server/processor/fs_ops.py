"""The blocking halves of the `fs/*` methods (run in worker threads under the `fs_rules` cap).

Each takes a client path already checked to be absolute and the daemon's private paths, resolves
and checks it by the `fs_rules`, and raises `OSError` (mapped by the caller) or a `TetherError`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from pathlib import Path

from tether_protocol.v2.fs import FsGetMetadataResponse, FsReadDirectoryEntry
from tether_server.errors import InvalidRequest
from tether_server.processor import fs_at, fs_rules


def _ms(seconds: float) -> int:
    return max(0, int(seconds * 1000))


def get_metadata(path: str, private: list[Path]) -> FsGetMetadataResponse:
    fs_rules.resolved(path, private)
    # What is described is what was opened and checked: a link swapped in after the check
    # cannot make it describe a private file.
    link = _checked_stat(path, private, follow=False)
    info: os.stat_result | None = link
    if stat.S_ISLNK(link.st_mode):
        try:
            info = _checked_stat(path, private, follow=True)
        except FileNotFoundError:
            info = None  # a dangling link: neither a file nor a directory
    # Linux exposes no birth time through os.stat; the schema says 0 when unknown.
    return FsGetMetadataResponse(
        is_directory=info is not None and stat.S_ISDIR(info.st_mode),
        is_file=info is not None and stat.S_ISREG(info.st_mode),
        is_symlink=stat.S_ISLNK(link.st_mode),
        created_at_ms=0,
        modified_at_ms=_ms((info or link).st_mtime),
    )


def _checked_stat(path: str, private: list[Path], *, follow: bool) -> os.stat_result:
    fd = os.open(path, os.O_PATH | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW))
    try:
        fs_rules.check(fs_at.where(fd), private)
        return os.fstat(fd)
    finally:
        os.close(fd)


def read_directory(path: str, private: list[Path]) -> list[FsReadDirectoryEntry]:
    fd = fs_at.open_dir(fs_rules.resolved(path, private), private)
    entries = []
    try:
        # Listed through the checked descriptor (scandir takes a copy of it), never by name again.
        with os.scandir(fd) as it:
            for entry in it:
                try:
                    is_dir, is_file = entry.is_dir(), entry.is_file()
                except OSError:
                    is_dir = is_file = False
                entries.append(
                    FsReadDirectoryEntry(file_name=entry.name, is_directory=is_dir, is_file=is_file)
                )
    finally:
        os.close(fd)
    entries.sort(key=lambda e: e.file_name)
    return entries


def write_file(path: str, data: bytes, private: list[Path]) -> None:
    """Replace the file at `path` (its symlinks followed, to a place that passes the rules) with
    `data`: a temporary file beside it, fsynced, renamed over it; an existing file keeps its mode."""
    real = fs_rules.resolved(path, private)
    dir_fd, name = fs_at.open_parent(real, private)
    try:
        try:
            existing = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        else:
            if stat.S_ISDIR(existing.st_mode):
                raise InvalidRequest(f"cannot write a file: {path} is a directory")
            if not stat.S_ISREG(existing.st_mode):
                raise InvalidRequest(f"cannot write a file: {path} is not a regular file")
            mode = stat.S_IMODE(existing.st_mode)
        fs_at.replace(dir_fd, name, data, mode)
    finally:
        os.close(dir_fd)


def _umask() -> int:
    # Read without changing it for long: there is no getter.
    current = os.umask(0o022)
    os.umask(current)
    return current


def create_directory(path: str, recursive: bool, private: list[Path]) -> None:
    real = fs_rules.resolved(path, private)
    if recursive:
        fs_at.make_dirs(real, private)
        return
    dir_fd, name = fs_at.open_parent(real, private)
    try:
        os.mkdir(name, dir_fd=dir_fd)
    finally:
        os.close(dir_fd)


def remove(path: str, recursive: bool, force: bool, private: list[Path]) -> None:
    """Remove `path`; a symlink is removed itself, never followed, inside a tree too."""
    target = fs_rules.resolved_parent(path, private, tree=True)
    dir_fd, name = fs_at.open_parent(target, private, tree=True)
    try:
        try:
            info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            if force:
                return
            raise
        if not stat.S_ISDIR(info.st_mode):
            os.unlink(name, dir_fd=dir_fd)
        elif recursive:
            # rmtree works through directory descriptors and unlinks symlinks rather than following
            # them; it refuses a directory that became a link since it looked.
            shutil.rmtree(name, dir_fd=dir_fd)
        else:
            os.rmdir(name, dir_fd=dir_fd)
    finally:
        os.close(dir_fd)


def copy(source: str, destination: str, recursive: bool, private: list[Path]) -> None:
    src = fs_rules.resolved(source, private, tree=True)
    dst = fs_rules.resolved_parent(destination, private)
    src_fd, info = fs_at.open_source(src, private)
    try:
        if stat.S_ISDIR(info.st_mode) and not recursive:
            raise InvalidRequest(f"{source} is a directory: copying it needs `recursive`")
        dir_fd, name = fs_at.open_parent(dst, private)
        try:
            _copy_into(src_fd, info, dir_fd, name, source, destination)
        finally:
            os.close(dir_fd)
    finally:
        os.close(src_fd)


def _copy_into(
    src_fd: int, info: os.stat_result, dir_fd: int, name: str, source: str, destination: str
) -> None:
    if stat.S_ISDIR(info.st_mode):
        into = Path(fs_at.where(dir_fd), name)
        if into.is_relative_to(fs_at.where(src_fd)):
            raise InvalidRequest(f"cannot copy {source} into itself")
        fs_at.copy_tree(src_fd, dir_fd, name, source)
        return
    with contextlib.suppress(FileNotFoundError):
        if stat.S_ISDIR(os.stat(name, dir_fd=dir_fd).st_mode):
            raise InvalidRequest(f"cannot copy a file onto a directory: {destination}")
    fs_at.copy_file(src_fd, dir_fd, name, source)


def open_watched(path: str, private: list[Path]) -> tuple[str, str, str | None, int]:
    """For `fs/watch`: (the resolved path, the directory inotify watches, the child name to keep
    for a file, that directory opened and checked). The watch is placed through the descriptor."""
    real = fs_rules.resolved(path, private)
    try:
        return real, real, None, fs_at.open_dir(real, private)
    except NotADirectoryError:
        pass
    dir_fd, name = fs_at.open_parent(real, private)
    try:
        os.stat(name, dir_fd=dir_fd)  # a file watch needs the file
    except BaseException:
        os.close(dir_fd)
        raise
    return real, os.path.dirname(real), name, dir_fd
