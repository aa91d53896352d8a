"""Small files the daemon rewrites whole (credentials, tokens, import history): a copy written
beside the file, then renamed over it, so a reader sees the old file or the new one, never half.

A copy is named after its writer's pid (`.NAME.PID.tmp`), not randomly: a daemon killed between
the write and the rename leaves a copy that may hold a key or tokens, and only a pid tells the
next opener whether its writer is gone (delete it) or may still rename it (leave it).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def write_atomic(path: Path, data: str | bytes, mode: int = 0o644) -> None:
    """Replace `path` with `data`; the file never exists with a wider mode than `mode`.

    Raises:
        OSError: the copy could not be written or renamed (it is removed, `path` is unchanged).
    """
    raw = data.encode() if isinstance(data, str) else data
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()  # our own earlier attempt, cut short
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode & 0o600)
        with os.fdopen(fd, "wb") as out:
            os.fchmod(fd, mode)  # created narrower than both the umask and `mode`, widened only to `mode`
            out.write(raw)
            out.flush()
            os.fsync(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def remove_orphans(path: Path) -> None:
    """Delete the copies of `path` that writers killed mid-write left; keep those of live ones."""
    prefix = f".{path.name}."
    for tmp in path.parent.glob(f"{prefix}*.tmp"):
        pid = tmp.name.removeprefix(prefix).removesuffix(".tmp")
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            with contextlib.suppress(OSError):
                tmp.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: not ours to judge
    return True
