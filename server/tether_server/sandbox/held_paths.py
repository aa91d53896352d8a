"""Paths Tether creates on the host for a command's sandbox and removes when the last user is done.

A stub directory (a mount target for a protected path that does not exist yet) and a startup-file
placeholder live the same way: created on first use unless something is already there, shared by
concurrent commands through a reference count kept per daemon process, and removed by the last
release only if Tether created it. Each creation is noted first in `stub_journal`, so what a
killed daemon leaves is removed when a daemon starts again on the same home.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from tether_server.sandbox import stub_journal


@dataclass
class _Held:
    refs: int
    created: bool
    entry: stub_journal.Entry | None = None


class HeldPaths:
    """`create(path)` makes the path and says whether it did (False: it was already there);
    `remove(path)` takes back what was created (it may leave a path somebody changed meanwhile)."""

    def __init__(self, kind: str, create: Callable[[Path], bool], remove: Callable[[Path], None]) -> None:
        self.kind = kind
        self._create = create
        self.remove = remove
        self._lock = threading.Lock()
        self._held: dict[Path, _Held] = {}

    def created_and_held(self, path: Path) -> bool:
        """True while `path` is one Tether created and a prepared command still holds."""
        with self._lock:
            held = self._held.get(path)
            return held is not None and held.created

    def acquire(self, paths: Iterable[Path]) -> tuple[Path, ...]:
        """Make sure each path exists; returns the paths to `release` later."""
        paths = tuple(paths)
        taken: list[Path] = []
        with self._lock:
            new = [path for path in dict.fromkeys(paths) if path not in self._held]
            # Journaled before any is created; nothing is written for paths already held.
            entry = stub_journal.record(self.kind, new)
            try:
                for path in paths:
                    held = self._held.get(path)
                    if held is None:
                        created = self._create(path)
                        held = self._held[path] = _Held(0, created, entry if created else None)
                        new.remove(path)
                        if not created and entry is not None:
                            entry.drop_one()
                    held.refs += 1
                    taken.append(path)
            except BaseException:
                for _ in new:
                    if entry is not None:
                        entry.drop_one()
                self._release(taken)
                raise
        return tuple(taken)

    def release(self, paths: Iterable[Path]) -> None:
        """Drop one reference per path; the last one removes what Tether created."""
        with self._lock:
            self._release(paths)

    def _release(self, paths: Iterable[Path]) -> None:
        for path in paths:
            held = self._held.get(path)
            if held is None:
                continue
            held.refs -= 1
            if held.refs > 0:
                continue
            del self._held[path]
            if held.created:
                self.remove(path)
            if held.entry is not None:
                held.entry.drop_one()
