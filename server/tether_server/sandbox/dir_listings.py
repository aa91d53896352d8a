"""What the nested-entries walk needs of a directory, kept between commands while it is unchanged.

Every sandboxed command walks its writable roots twice (planning its mounts, then finding what it
created), and a shared `/tmp` holds thousands of directories: reading them all again cost a
command tens of milliseconds. A directory's listing only changes when an entry is created,
removed or renamed in it, so a listing is kept while nothing of the kind happened:

- With inotify (`dir_watch`), each kept directory is watched from before it is read; every event
  queued since is applied before a listing is reused, so whatever changed before the walk began
  is read again. A directory moved or removed forgets everything kept below its path.
- Without it (no inotify, or this process's share of watches used up), a listing is kept while
  the directory's device, inode, mtime and ctime are those seen before it was read, and only when
  it was last changed well before that (`RACY_S`, the "racy git" rule: a change within the
  timestamp granularity could keep the same ctime).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple

from tether_server.sandbox.dir_watch import DirWatch

# Well above any filesystem's timestamp granularity (coarse kernel clock ticks, 1 s on some).
RACY_S = 2.0
# Bounds the memory the cache may hold (subdirectory paths kept); past it, it starts over.
MAX_KEPT_PATHS = 200_000


class Listing(NamedTuple):
    """One directory as the walk sees it.

    Attributes:
        protected: `(path, is_symlink)` of the entries named like a protected path.
        subdirs: paths of the other entries that are directories (symlinks excluded).
    """

    protected: tuple[tuple[str, bool], ...]
    subdirs: tuple[str, ...]


class _Kept(NamedTuple):
    stamp: tuple[int, int, int, int] | None  # None: kept under an inotify watch
    names: tuple[str, ...]
    listing: Listing


_kept: dict[str, _Kept] = {}
_kept_paths = 0
_lock = threading.Lock()
_watch: DirWatch | None = None
_watch_pid = 0


def lister(names: Sequence[str]) -> Callable[[str], Listing | None]:
    """For one walk: a function giving a directory's entries named in `names` and its
    subdirectories (None when unreadable), as they are now or were when last read, unchanged since.

    Changes made before this call are seen; one made during the walk may or may not be, as with
    any walk of a live tree.
    """
    wanted = tuple(names)
    with _lock:
        watch = _watcher()
        if watch is not None:
            watch.drain(_forget, _forget_below, _clear_kept)

    def listing(directory: str) -> Listing | None:
        with _lock:
            kept = _kept.get(directory)
            if watch is not None and not watch.closed:
                if kept is not None and kept.stamp is None and kept.names == wanted:
                    return kept.listing
                if watch.add(directory):
                    fresh = _read(directory, wanted)
                    if fresh is not None:
                        _keep(directory, _Kept(None, wanted, fresh))
                    return fresh
            return _stat_checked(directory, wanted, kept)

    return listing


def clear() -> None:
    """Forget every listing and watch (tests; a daemon that wants to start afresh)."""
    global _watch
    with _lock:
        _clear_kept()
        if _watch is not None:
            _watch.close()
            _watch = None


def _watcher() -> DirWatch | None:
    global _watch, _watch_pid
    if _watch is not None and _watch_pid != os.getpid():  # a forked child starts afresh
        _watch = None
        _clear_kept()
    if _watch is None:
        _watch, _watch_pid = DirWatch.open(), os.getpid()
    if _watch is not None and _watch.full():
        # Out of this process's share of watches: start over rather than keep what is unwatched.
        _watch.close()
        _clear_kept()
        _watch = DirWatch.open()
    return _watch


def _stat_checked(directory: str, names: tuple[str, ...], kept: _Kept | None) -> Listing | None:
    now = time.time()
    try:
        info = os.stat(directory)
    except OSError:
        return None
    stamp = (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_ctime_ns)
    if kept is not None and kept.stamp == stamp and kept.names == names:
        return kept.listing
    fresh = _read(directory, names)
    if fresh is not None and max(info.st_mtime_ns, info.st_ctime_ns) < (now - RACY_S) * 1e9:
        _keep(directory, _Kept(stamp, names, fresh))
    return fresh


def _read(directory: str, names: tuple[str, ...]) -> Listing | None:
    protected: list[tuple[str, bool]] = []
    subdirs: list[str] = []
    try:
        with os.scandir(directory) as it:
            entries = list(it)
    except OSError:
        return None
    for entry in entries:
        if entry.name in names:
            protected.append((entry.path, _is_symlink(entry)))
        elif _is_dir(entry):
            subdirs.append(entry.path)
    return Listing(tuple(protected), tuple(subdirs))


def _keep(directory: str, kept: _Kept) -> None:
    global _kept_paths
    size = len(kept.listing.subdirs) + 1
    if _kept_paths + size > MAX_KEPT_PATHS:
        _clear_kept()
    _forget(directory)
    _kept[directory] = kept
    _kept_paths += size


def _forget(directory: str) -> None:
    global _kept_paths
    old = _kept.pop(directory, None)
    if old is not None:
        _kept_paths -= len(old.listing.subdirs) + 1


def _forget_below(directory: str) -> None:
    """`directory` and everything kept under its path: it was moved or removed."""
    under = directory.rstrip("/") + "/"
    for path in [p for p in _kept if p == directory or p.startswith(under)]:
        _forget(path)


def _clear_kept() -> None:
    global _kept_paths
    _kept.clear()
    _kept_paths = 0


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _is_symlink(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False
