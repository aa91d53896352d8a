"""Empty directories created as mount targets for missing protected paths, and their removal.

bwrap needs a mount target to exist. For a protected path that does not exist yet (cwd/.codex),
we create an empty directory ourselves (a direct child of a canonical root, so no symlink is
followed), cover it with a read-only tmpfs in the sandbox, and remove it when the last command
using it ends; otherwise a stray stub would linger in the user's workspace. Reference counts are
per daemon process, so concurrent commands in the same workspace share one stub.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

_lock = threading.Lock()


@dataclass
class _Stub:
    refs: int
    created: bool


_stubs: dict[Path, _Stub] = {}


def is_stub(path: Path) -> bool:
    """True while `path` is a stub some prepared command of this process still holds."""
    with _lock:
        return path in _stubs and _stubs[path].created


def acquire(paths: Iterable[Path]) -> tuple[Path, ...]:
    """Make sure each path exists as a directory; returns the paths to `release` later."""
    held: list[Path] = []
    with _lock:
        for path in paths:
            stub = _stubs.get(path)
            if stub is None:
                stub = _stubs[path] = _Stub(refs=0, created=_make(path))
            stub.refs += 1
            held.append(path)
    return tuple(held)


def release(paths: Iterable[Path]) -> None:
    """Drop one reference per path; remove stubs we created once nobody uses them."""
    with _lock:
        for path in paths:
            stub = _stubs.get(path)
            if stub is None:
                continue
            stub.refs -= 1
            if stub.refs > 0:
                continue
            del _stubs[path]
            if stub.created:
                # Left alone if someone outside the sandbox put files in it meanwhile.
                with contextlib.suppress(OSError):
                    path.rmdir()


def _make(path: Path) -> bool:
    try:
        path.mkdir(mode=0o755)
    except FileExistsError:
        return False
    return True
