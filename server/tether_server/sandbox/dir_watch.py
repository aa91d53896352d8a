"""inotify watches on the directories whose listings `dir_listings` keeps: which of them changed.

Only directories are watched, and only for what changes a listing (an entry created, removed,
renamed, or its attributes changed) and for the directory itself going away. Events are queued by
the kernel as each change happens, so draining the queue before reusing a listing sees every
change made before that moment. A lost event (queue overflow) forgets every listing.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
from collections.abc import Callable

IN_ATTRIB = 0x4
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_UNMOUNT = 0x2000
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x01000000
IN_ISDIR = 0x40000000
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC

WATCHED = IN_ATTRIB | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF
_GONE = IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT | IN_IGNORED
# A subdirectory moved or removed: whatever was kept below its path no longer describes that path.
_SUBDIR_GONE = IN_MOVED_FROM | IN_DELETE
# Well under the usual per-user limits (8,192 on old kernels, far more on new ones), which every
# process of the user shares: an editor's file watcher must not run out because of the daemon.
MAX_WATCHES = 6144
_EVENT = struct.Struct("iIII")

_libc = ctypes.CDLL(None, use_errno=True)

Forget = Callable[[str], None]


class DirWatch:
    """One inotify instance: directory paths by watch descriptor, and the reverse."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._paths: dict[int, set[str]] = {}
        self._wds: dict[str, int] = {}

    @classmethod
    def open(cls) -> DirWatch | None:
        """A new instance, or None where inotify is unavailable (the caller reads every time)."""
        fd = _libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        return None if fd < 0 else cls(fd)

    @property
    def closed(self) -> bool:
        return self._fd < 0

    def full(self) -> bool:
        return len(self._wds) >= MAX_WATCHES

    def add(self, directory: str) -> bool:
        """Watch `directory` (before reading it); False when it cannot be watched."""
        if directory in self._wds:
            return True
        if self.full():
            return False
        wd = _libc.inotify_add_watch(self._fd, os.fsencode(directory), WATCHED | IN_ONLYDIR)
        if wd < 0:
            return False
        self._paths.setdefault(wd, set()).add(directory)
        self._wds[directory] = wd
        return True

    def drain(self, changed: Forget, gone: Forget, lost: Callable[[], None]) -> None:
        """Apply every queued event: `changed(dir)` for a changed listing, `gone(dir)` for a
        directory moved or removed (and everything kept below it), `lost()` after an overflow."""
        while True:
            try:
                data = os.read(self._fd, 64 * 1024)
            except BlockingIOError:
                return
            except OSError as exc:
                if exc.errno == errno.EINTR:
                    continue
                raise
            if not data:
                return
            self._apply(data, changed, gone, lost)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        self._paths.clear()
        self._wds.clear()

    def _apply(self, data: bytes, changed: Forget, gone: Forget, lost: Callable[[], None]) -> None:
        offset = 0
        while offset + _EVENT.size <= len(data):
            wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
            name = data[offset + _EVENT.size : offset + _EVENT.size + length].rstrip(b"\0")
            offset += _EVENT.size + length
            if mask & IN_Q_OVERFLOW:
                # A move may be among the lost events: no watch's path can be trusted either.
                lost()
                self._drop_below("/")
                continue
            for path in list(self._paths.get(wd, ())):
                if mask & _GONE:
                    gone(path)
                    self._drop_below(path)
                    continue
                changed(path)
                if name and mask & IN_ISDIR and mask & _SUBDIR_GONE:
                    child = os.path.join(path, os.fsdecode(name))
                    gone(child)
                    self._drop_below(child)

    def _drop_below(self, directory: str) -> None:
        """Forget the watches of `directory` and below: moved, they follow their inodes to paths
        nobody asked about, and a new directory made at one of the old paths needs its own."""
        under = directory.rstrip("/") + "/"
        for path in [p for p in self._wds if p == directory or p.startswith(under)]:
            wd = self._wds.pop(path)
            paths = self._paths.get(wd)
            if paths is None:
                continue
            paths.discard(path)
            if not paths:
                del self._paths[wd]
                _libc.inotify_rm_watch(self._fd, wd)
