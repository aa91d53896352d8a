"""The blocking halves of the `fs/*` methods (run in worker threads under the `fs_rules` cap).

Each takes a client path already checked to be absolute and the daemon's private paths, resolves
and checks it by the `fs_rules`, and raises `OSError` (mapped by the caller) or a `TetherError`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from pathlib import Path

from tether_protocol.v2.fs import FsGetMetadataResponse, FsReadDirectoryEntry
from tether_server.errors import InvalidRequest
from tether_server.processor import fs_rules

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC


def _ms(seconds: float) -> int:
    return max(0, int(seconds * 1000))


def get_metadata(path: str, private: list[Path]) -> FsGetMetadataResponse:
    fs_rules.resolved(path, private)
    link = os.lstat(path)
    try:
        info: os.stat_result | None = os.stat(path)
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


def read_directory(path: str, private: list[Path]) -> list[FsReadDirectoryEntry]:
    real = fs_rules.resolved(path, private)
    entries = []
    with os.scandir(real) as it:
        for entry in it:
            try:
                is_dir, is_file = entry.is_dir(), entry.is_file()
            except OSError:
                is_dir = is_file = False
            entries.append(FsReadDirectoryEntry(file_name=entry.name, is_directory=is_dir, is_file=is_file))
    entries.sort(key=lambda e: e.file_name)
    return entries


def write_file(path: str, data: bytes, private: list[Path]) -> None:
    """Replace the file at `path` (its symlinks followed, to a place that passes the rules) with
    `data`: a temporary file beside it, fsynced, renamed over it; an existing file keeps its mode."""
    real = fs_rules.resolved(path, private)
    parent, name = os.path.split(real)
    dir_fd = os.open(parent, _DIR_FLAGS)
    try:
        # The directory actually opened is checked: a parent swapped for a link after the
        # path check cannot redirect the write.
        fs_rules.check_fd(dir_fd, private)
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
        _replace(dir_fd, parent, name, data, mode)
    finally:
        os.close(dir_fd)


def _umask() -> int:
    # Read without changing it for long: there is no getter.
    current = os.umask(0o022)
    os.umask(current)
    return current


def _replace(dir_fd: int, parent: str, name: str, data: bytes, mode: int) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=parent)
    tmp_name = os.path.basename(tmp)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        os.rename(tmp_name, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name, dir_fd=dir_fd)
        raise
    os.fsync(dir_fd)


def create_directory(path: str, recursive: bool, private: list[Path]) -> None:
    real = fs_rules.resolved(path, private)
    if recursive:
        os.makedirs(real, exist_ok=True)
    else:
        os.mkdir(real)


def remove(path: str, recursive: bool, force: bool, private: list[Path]) -> None:
    """Remove `path`; a symlink is removed itself, never followed, inside a tree too."""
    target = fs_rules.resolved_parent(path, private, tree=True)
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        if force:
            return
        raise
    if not stat.S_ISDIR(info.st_mode):
        os.unlink(target)
    elif recursive:
        # rmtree works through directory descriptors and unlinks symlinks rather than following them.
        shutil.rmtree(target)
    else:
        os.rmdir(target)


def copy(source: str, destination: str, recursive: bool, private: list[Path]) -> None:
    src = fs_rules.resolved(source, private, tree=True)
    dst = fs_rules.resolved_parent(destination, private)
    info = os.stat(src)
    if stat.S_ISDIR(info.st_mode):
        if not recursive:
            raise InvalidRequest(f"{source} is a directory: copying it needs `recursive`")
        if Path(os.path.realpath(dst)).is_relative_to(src):
            raise InvalidRequest(f"cannot copy {source} into itself")
        # Links inside the tree are copied as links: their targets are not read.
        shutil.copytree(src, dst, symlinks=True, copy_function=_copy_regular)
    elif stat.S_ISREG(info.st_mode):
        if os.path.isdir(dst):
            raise InvalidRequest(f"cannot copy a file onto a directory: {destination}")
        _copy_regular(src, dst)
    else:
        raise InvalidRequest(f"not a regular file or directory: {source}")


def _copy_regular(src: str, dst: str) -> str:
    """Copy one regular file; anything else (a FIFO would block, a device act) is refused."""
    fd = os.open(src, _READ_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InvalidRequest(f"not a regular file: {src}")
        mode = stat.S_IMODE(os.fstat(fd).st_mode)
        # O_NOFOLLOW: an existing link at the destination is not written through.
        out = os.open(dst, _WRITE_FLAGS, mode)
        with os.fdopen(os.dup(fd), "rb") as reader, os.fdopen(out, "wb") as writer:
            shutil.copyfileobj(reader, writer)
            os.fchmod(writer.fileno(), mode)
    finally:
        os.close(fd)
    return dst
