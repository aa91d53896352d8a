"""Paths Tether creates on the host for a command's sandbox and removes when the last user is done.

A stub directory (a mount target for a protected path that does not exist yet) and a startup-file
placeholder live the same way: created on first use unless something is already there, shared by
concurrent commands through a reference count kept per daemon process, and removed by the last
release only if Tether created it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path


@dataclass
class _Held:
    refs: int
    created: bool


class HeldPaths:
    """`create(path)` makes the path and says whether it did (False: it was already there);
    `remove(path)` takes back what was created (it may leave a path somebody changed meanwhile)."""

    def __init__(self, create: Callable[[Path], bool], remove: Callable[[Path], None]) -> None:
        self._create = create
        self._remove = remove
        self._lock = threading.Lock()
        self._held: dict[Path, _Held] = {}

    def created_and_held(self, path: Path) -> bool:
        """True while `path` is one Tether created and a prepared command still holds."""
        with self._lock:
            held = self._held.get(path)
            return held is not None and held.created

    def acquire(self, paths: Iterable[Path]) -> tuple[Path, ...]:
        """Make sure each path exists; returns the paths to `release` later."""
        taken: list[Path] = []
        with self._lock:
            for path in paths:
                held = self._held.get(path)
                if held is None:
                    held = self._held[path] = _Held(refs=0, created=self._create(path))
                held.refs += 1
                taken.append(path)
        return tuple(taken)

    def release(self, paths: Iterable[Path]) -> None:
        """Drop one reference per path; the last one removes what Tether created."""
        with self._lock:
            for path in paths:
                held = self._held.get(path)
                if held is None:
                    continue
                held.refs -= 1
                if held.refs > 0:
                    continue
                del self._held[path]
                if held.created:
                    self._remove(path)
