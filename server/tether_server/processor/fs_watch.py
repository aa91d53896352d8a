"""`fs/watch` / `fs/unwatch`: inotify watches that send `fs/changed` to the watching connection only.

A directory is watched for changes to its direct children and itself; a file is watched through
its parent directory (so an editor's write-temp-then-rename is seen) filtered to its name. Events
are gathered for a short window and sent as one notification.

Every watch of every connection shares one inotify instance, read by the event loop (no thread).
A user may hold only a few instances (`max_user_instances`, 128 by default, shared with every
other program of the user): one per watch let a client exhaust them. The instance exists while
some watch does; two watches of one directory share its kernel watch descriptor. A connection may
hold `MAX_WATCHES_PER_CONNECTION` watches and the daemon `MAX_WATCHES_PER_DAEMON`; they all end
with their connection (`FsWatches.connection_closed`, from the one disconnect path).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass, field

import inotify_simple

from tether_protocol import server_methods as sm
from tether_protocol.v2.fs import FsChangedNotification
from tether_server.errors import InvalidRequest, Overloaded
from tether_server.rpc.connection import Connection
from tether_server.rpc.outgoing import send_notification

MAX_WATCHES_PER_CONNECTION = 64
MAX_WATCHES_PER_DAEMON = 4096
COALESCE_S = 0.05
_F = inotify_simple.flags
_MASK = (
    _F.CREATE
    | _F.DELETE
    | _F.MODIFY
    | _F.CLOSE_WRITE
    | _F.MOVED_FROM
    | _F.MOVED_TO
    | _F.ATTRIB
    | _F.DELETE_SELF
    | _F.MOVE_SELF
)


@dataclass(eq=False)
class Watch:
    """One client watch: `directory` is what inotify watches, `only` the child name for a file."""

    connection: Connection
    watch_id: str
    directory: str
    only: str | None
    wd: int
    pending: set[str] = field(default_factory=set)
    flush: asyncio.TimerHandle | None = None

    def seen(self, name: str) -> None:
        if self.only is not None and name != self.only:
            return
        self.pending.add(os.path.join(self.directory, name) if name else self.directory)
        if self.flush is None:
            self.flush = asyncio.get_running_loop().call_later(COALESCE_S, self.send)

    def send(self) -> None:
        self.flush = None
        paths, self.pending = sorted(self.pending), set()
        note = FsChangedNotification(watch_id=self.watch_id, changed_paths=paths)
        send_notification([self.connection], sm.FS_CHANGED, note)

    def cancel(self) -> None:
        if self.flush is not None:
            self.flush.cancel()


class _Hub:
    """The one inotify instance, and which watches each kernel watch descriptor feeds."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.notify = inotify_simple.INotify(nonblocking=True)
        self.by_wd: dict[int, set[Watch]] = {}
        self.loop.add_reader(self.notify.fileno(), self._on_readable)

    def add(self, target: str) -> int:
        # The same inode gives the same descriptor back, with its mask replaced by the same mask.
        wd: int = self.notify.add_watch(target, _MASK | _F.ONLYDIR)
        self.by_wd.setdefault(wd, set())
        return wd

    def drop(self, watch: Watch) -> None:
        watch.cancel()
        feeds = self.by_wd.get(watch.wd)
        if feeds is None:
            return
        feeds.discard(watch)
        if not feeds:
            del self.by_wd[watch.wd]
            with contextlib.suppress(OSError):  # already gone with its directory
                self.notify.rm_watch(watch.wd)

    def close(self) -> None:
        self.loop.remove_reader(self.notify.fileno())
        self.notify.close()

    def _on_readable(self) -> None:
        try:
            events = self.notify.read(timeout=0)
        except OSError:
            return
        for event in events:
            for watch in list(self.by_wd.get(event.wd, ())):
                watch.seen(event.name)
            if event.mask & _F.IGNORED:
                # The kernel ended this descriptor (directory removed, unmounted) and may reuse it.
                self.by_wd.pop(event.wd, None)


class FsWatches:
    """Every connection's watches and the one inotify instance they share (while any exists)."""

    def __init__(self) -> None:
        self._hub: _Hub | None = None
        self._watches: dict[int, dict[str, Watch]] = {}

    def _the_hub(self) -> _Hub:
        if self._hub is None or self._hub.loop is not asyncio.get_running_loop():
            self._hub = _Hub()
        return self._hub

    def _release_hub_if_idle(self) -> None:
        if self._hub is not None and not any(self._watches.values()):
            self._hub.close()
            self._hub = None

    def start(
        self, connection: Connection, watch_id: str, directory: str, only: str | None, target: str
    ) -> None:
        """Watch `directory` (resolved and checked; with `only`, just that child of it) for
        `connection` under `watch_id`. inotify is given `target`: the `/proc/self/fd/N` name of the
        directory already opened and checked, so a swap after the check cannot redirect it.

        Raises:
            InvalidRequest: `watch_id` is already in use on this connection.
            Overloaded: the connection or the daemon holds as many watches as it may.
            OSError: the directory cannot be watched (no permission, inotify limits).
        """
        mine = self._watches.get(connection.id)
        if mine is not None and watch_id in mine:
            raise InvalidRequest(f"watch id already in use: {watch_id}")
        if mine is not None and len(mine) >= MAX_WATCHES_PER_CONNECTION:
            raise Overloaded(
                f"too many watches on this connection (limit {MAX_WATCHES_PER_CONNECTION})",
                data={"scope": "fs/watch", "limit": MAX_WATCHES_PER_CONNECTION},
            )
        if sum(len(w) for w in self._watches.values()) >= MAX_WATCHES_PER_DAEMON:
            raise Overloaded(
                f"too many watches on this server (limit {MAX_WATCHES_PER_DAEMON})",
                data={"scope": "fs/watch", "limit": MAX_WATCHES_PER_DAEMON},
            )
        hub = self._the_hub()
        try:
            wd = hub.add(target)
        except OSError:
            self._release_hub_if_idle()
            raise
        watch = Watch(connection, watch_id, directory, only, wd)
        hub.by_wd[wd].add(watch)
        self._watches.setdefault(connection.id, {})[watch_id] = watch

    def stop(self, connection: Connection, watch_id: str) -> None:
        """End `watch_id` of `connection`.

        Raises:
            InvalidRequest: no such watch on this connection.
        """
        watch = self._watches.get(connection.id, {}).pop(watch_id, None)
        if watch is None:
            raise InvalidRequest(f"unknown watch id: {watch_id}")
        self._end([watch])

    def count(self, connection: Connection) -> int:
        """How many watches `connection` holds."""
        return len(self._watches.get(connection.id, {}))

    def connection_closed(self, connection: Connection) -> None:
        self._end(list(self._watches.pop(connection.id, {}).values()))

    def _end(self, watches: list[Watch]) -> None:
        if self._hub is not None:
            for watch in watches:
                self._hub.drop(watch)
        self._release_hub_if_idle()
