"""A FUSE file system that passes everything through to a source folder, and can turn read-only
under a running process: while the switch file exists, every change fails with EROFS, as on a
file system remounted read-only (which the kernel refuses while a file is open for writing).

Run as `python -m tests.chaos.rofs SOURCE MOUNTPOINT SWITCH`; it serves in the foreground until
the mount is unmounted. Needs libfuse2 (`apt-get install libfuse2`) and the `fusepy` binding.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from typing import Any

from fuse import FUSE, FuseOSError, Operations

_STAT_FIELDS = (
    "st_atime", "st_ctime", "st_gid", "st_mode", "st_mtime", "st_nlink", "st_size", "st_uid",
    "st_atime_ns", "st_ctime_ns", "st_mtime_ns", "st_ino", "st_dev", "st_blocks", "st_blksize",
)  # fmt: skip
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


class Passthrough(Operations):  # type: ignore[misc]
    def __init__(self, source: Path, switch: Path) -> None:
        self.source = source
        self.switch = switch

    def _path(self, path: str) -> str:
        return str(self.source) + path

    def _writable(self) -> None:
        if self.switch.exists():
            raise FuseOSError(errno.EROFS)

    def __call__(self, op: str, *args: Any) -> Any:
        try:
            return super().__call__(op, *args)
        except OSError as exc:
            if isinstance(exc, FuseOSError):
                raise
            raise FuseOSError(exc.errno or errno.EIO) from None

    # ---- reading --------------------------------------------------------------------------------

    def getattr(self, path: str, fh: int | None = None) -> dict[str, Any]:
        st = os.fstat(fh) if fh is not None else os.lstat(self._path(path))
        return {key: getattr(st, key) for key in _STAT_FIELDS if hasattr(st, key)}

    def access(self, path: str, amode: int) -> None:
        if amode & os.W_OK:
            self._writable()
        if not os.access(self._path(path), amode):
            raise FuseOSError(errno.EACCES)

    def readdir(self, path: str, fh: int) -> list[str]:
        return [".", "..", *os.listdir(self._path(path))]

    def readlink(self, path: str) -> str:
        return os.readlink(self._path(path))

    def statfs(self, path: str) -> dict[str, Any]:
        st = os.statvfs(self._path(path))
        keys = ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree", "f_files", "f_flag",
                "f_frsize", "f_namemax")  # fmt: skip
        return {key: getattr(st, key) for key in keys}

    def open(self, path: str, flags: int) -> int:
        if flags & _WRITE_FLAGS:
            self._writable()
        return os.open(self._path(path), flags)

    def read(self, path: str, size: int, offset: int, fh: int) -> bytes:
        return os.pread(fh, size, offset)

    def flush(self, path: str, fh: int) -> None:
        return None

    def release(self, path: str, fh: int) -> None:
        os.close(fh)

    # ---- changing ------------------------------------------------------------------------------

    def create(self, path: str, mode: int, fi: Any = None) -> int:
        self._writable()
        return os.open(self._path(path), os.O_RDWR | os.O_CREAT, mode)

    def write(self, path: str, data: bytes, offset: int, fh: int) -> int:
        self._writable()
        return os.pwrite(fh, data, offset)

    def truncate(self, path: str, length: int, fh: int | None = None) -> None:
        self._writable()
        if fh is not None:
            os.ftruncate(fh, length)
        else:
            os.truncate(self._path(path), length)

    def fsync(self, path: str, datasync: int, fh: int) -> None:
        os.fdatasync(fh) if datasync else os.fsync(fh)

    def unlink(self, path: str) -> None:
        self._writable()
        os.unlink(self._path(path))

    def mkdir(self, path: str, mode: int) -> None:
        self._writable()
        os.mkdir(self._path(path), mode)

    def rmdir(self, path: str) -> None:
        self._writable()
        os.rmdir(self._path(path))

    def rename(self, old: str, new: str) -> None:
        self._writable()
        os.rename(self._path(old), self._path(new))

    def chmod(self, path: str, mode: int) -> None:
        self._writable()
        os.chmod(self._path(path), mode)

    def chown(self, path: str, uid: int, gid: int) -> None:
        self._writable()
        os.chown(self._path(path), uid, gid)

    def utimens(self, path: str, times: tuple[float, float] | None = None) -> None:
        self._writable()
        os.utime(self._path(path), times)

    def symlink(self, target: str, source: str) -> None:
        self._writable()
        os.symlink(source, self._path(target))

    def link(self, target: str, source: str) -> None:
        self._writable()
        os.link(self._path(source), self._path(target))


def main() -> None:
    source, mountpoint, switch = (Path(arg) for arg in sys.argv[1:4])
    FUSE(Passthrough(source, switch), str(mountpoint), foreground=True, nothreads=False, use_ino=True)


if __name__ == "__main__":
    main()
