"""`skills/changed`: inotify on the skill folders clients asked about, one notification per burst.

Codex tells its clients when watched skill files change, as an invalidation signal: the client
lists again. Tether watches each root a client has seen through `skills/list` or set with
`skills/extraRoots/set` (the user's own roots, the repositories' `.agents/skills` of the listed
working directories, the extra roots), and each skill folder directly inside it, so a new skill,
a removed one and an edited `SKILL.md` are all seen. Events are gathered for `COALESCE_S` and sent
as one `skills/changed` to every connection.

One inotify instance, read by the event loop (no thread, no polling). It exists while some
connection that asked is open (`connection_closed`, from the one disconnect path); at most
`MAX_DESCRIPTORS` folders are watched, the rest are not (a client still sees them by listing).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Iterable
from pathlib import Path

import inotify_simple

from tether_server.rpc.connection import Connection

COALESCE_S = 0.1
MAX_DESCRIPTORS = 1024
_F = inotify_simple.flags
_MASK = (
    _F.CREATE
    | _F.DELETE
    | _F.MODIFY
    | _F.CLOSE_WRITE
    | _F.MOVED_FROM
    | _F.MOVED_TO
    | _F.DELETE_SELF
    | _F.MOVE_SELF
    | _F.ONLYDIR
    | _F.DONT_FOLLOW
)


def folders_to_watch(roots: Iterable[Path], make: Path | None = None) -> list[Path]:
    """Each existing root and the skill folders directly in it (blocking: run it off the loop).

    `make`: a root to create first (`$TETHER_HOME/skills`, as Codex makes `$CODEX_HOME/skills`),
    so the user's first skill there is seen arriving.
    """
    if make is not None:
        with contextlib.suppress(OSError):
            make.mkdir(mode=0o700, exist_ok=True)
    found: list[Path] = []
    for root in roots:
        if not root.is_dir() or root.is_symlink():
            continue
        found.append(root)
        with contextlib.suppress(OSError):
            found += sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink())
    return found


class SkillsWatch:
    """The watched skill folders and the one inotify instance behind them (while anyone listens)."""

    def __init__(self, send: Callable[[], None]) -> None:
        self._send = send
        self._notify: inotify_simple.INotify | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._by_wd: dict[int, Path] = {}
        self._roots: set[Path] = set()
        self._listeners: set[int] = set()
        self._flush: asyncio.TimerHandle | None = None

    def follow(self, connection: Connection, roots: Iterable[Path], folders: Iterable[Path]) -> None:
        """Watch `folders` (from `folders_to_watch(roots)`) for `connection`'s sake."""
        self._listeners.add(connection.id)
        self._roots.update(roots)
        notify = self._instance()
        watched = set(self._by_wd.values())
        for folder in folders:
            if folder not in watched:
                self._add(notify, folder)

    def connection_closed(self, connection: Connection) -> None:
        self._listeners.discard(connection.id)
        if not self._listeners:
            self.close()

    def close(self) -> None:
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        if self._notify is not None and self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                self._loop.remove_reader(self._notify.fileno())
            self._notify.close()
        self._notify, self._loop = None, None
        self._by_wd.clear()
        self._roots.clear()

    def watched(self) -> list[Path]:
        """The folders watched now."""
        return sorted(set(self._by_wd.values()))

    def _instance(self) -> inotify_simple.INotify:
        loop = asyncio.get_running_loop()
        if self._notify is None or self._loop is not loop:
            self.close()
            self._notify, self._loop = inotify_simple.INotify(nonblocking=True), loop
            loop.add_reader(self._notify.fileno(), self._on_readable)
        return self._notify

    def _add(self, notify: inotify_simple.INotify, folder: Path) -> None:
        if len(self._by_wd) >= MAX_DESCRIPTORS:
            return
        try:
            wd: int = notify.add_watch(str(folder), _MASK)
        except OSError:  # gone since it was listed, or the user's inotify limit is reached
            return
        self._by_wd[wd] = folder

    def _on_readable(self) -> None:
        notify = self._notify
        if notify is None:
            return
        try:
            events = notify.read(timeout=0)
        except OSError:
            return
        for event in events:
            folder = self._by_wd.get(event.wd)
            if event.mask & _F.IGNORED:
                # The kernel ended this descriptor (folder removed) and may reuse the number.
                self._by_wd.pop(event.wd, None)
            elif folder in self._roots and event.mask & _F.ISDIR and event.mask & (_F.CREATE | _F.MOVED_TO):
                # A new skill folder: its SKILL.md edits count too.
                child = folder / event.name
                if not os.path.islink(child):
                    self._add(notify, child)
            if folder is not None and self._flush is None and self._loop is not None:
                self._flush = self._loop.call_later(COALESCE_S, self._fire)

    def _fire(self) -> None:
        self._flush = None
        self._send()
