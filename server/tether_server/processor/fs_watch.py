"""`fs/watch` / `fs/unwatch`: inotify watches that send `fs/changed` to the watching connection only.

A directory is watched for changes to its direct children and itself; a file is watched through
its parent directory (so an editor's write-temp-then-rename is seen) filtered to its name. Events
are gathered for a short window and sent as one notification. Each watch holds one inotify
descriptor, read by the event loop (no thread); a connection may hold a bounded number of watches,
and they all end with it.
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


@dataclass
class Watch:
    """One client watch: `directory` is what inotify watches, `only` the child name for a file."""

    connection: Connection
    watch_id: str
    directory: str
    only: str | None
    notify: inotify_simple.INotify
    pending: set[str] = field(default_factory=set)
    flush: asyncio.TimerHandle | None = None

    def on_readable(self) -> None:
        try:
            events = self.notify.read(timeout=0)
        except OSError:
            return
        for event in events:
            name = event.name
            if self.only is not None and name != self.only:
                continue
            self.pending.add(os.path.join(self.directory, name) if name else self.directory)
        if self.pending and self.flush is None:
            self.flush = asyncio.get_running_loop().call_later(COALESCE_S, self.send)

    def send(self) -> None:
        self.flush = None
        paths, self.pending = sorted(self.pending), set()
        note = FsChangedNotification(watch_id=self.watch_id, changed_paths=paths)
        send_notification([self.connection], sm.FS_CHANGED, note)

    def close(self) -> None:
        if self.flush is not None:
            self.flush.cancel()
        asyncio.get_running_loop().remove_reader(self.notify.fileno())
        self.notify.close()


_watches: dict[int, dict[str, Watch]] = {}
_reapers: set[asyncio.Task[None]] = set()


def start(connection: Connection, watch_id: str, real: str) -> None:
    """Watch the resolved, checked path `real` for `connection` under `watch_id`.

    Raises:
        InvalidRequest: `watch_id` is already in use on this connection.
        Overloaded: the connection holds `MAX_WATCHES_PER_CONNECTION` watches.
        OSError: the path cannot be watched (missing, no permission, inotify limits).
    """
    mine = _watches.get(connection.id)
    if mine is not None and watch_id in mine:
        raise InvalidRequest(f"watch id already in use: {watch_id}")
    if mine is not None and len(mine) >= MAX_WATCHES_PER_CONNECTION:
        raise Overloaded(
            f"too many watches on this connection (limit {MAX_WATCHES_PER_CONNECTION})",
            data={"scope": "fs/watch", "limit": MAX_WATCHES_PER_CONNECTION},
        )
    is_dir = os.path.isdir(real)
    directory, only = (real, None) if is_dir else os.path.split(real)
    if not is_dir and not os.path.exists(real):
        raise FileNotFoundError(2, os.strerror(2), real)
    notify = inotify_simple.INotify(nonblocking=True)
    try:
        notify.add_watch(directory, _MASK | _F.ONLYDIR)
    except OSError:
        notify.close()
        raise
    watch = Watch(connection, watch_id, directory, only, notify)
    asyncio.get_running_loop().add_reader(notify.fileno(), watch.on_readable)
    if mine is None:
        mine = _watches[connection.id] = {}
        reaper = asyncio.get_running_loop().create_task(_end_with(connection))
        _reapers.add(reaper)
        reaper.add_done_callback(_reapers.discard)
    mine[watch_id] = watch


def stop(connection: Connection, watch_id: str) -> None:
    """End `watch_id` of `connection`.

    Raises:
        InvalidRequest: no such watch on this connection.
    """
    watch = _watches.get(connection.id, {}).pop(watch_id, None)
    if watch is None:
        raise InvalidRequest(f"unknown watch id: {watch_id}")
    watch.close()


def count(connection: Connection) -> int:
    """How many watches `connection` holds."""
    return len(_watches.get(connection.id, {}))


async def _end_with(connection: Connection) -> None:
    with contextlib.suppress(asyncio.CancelledError):
        await connection.closed.wait()
    for watch in _watches.pop(connection.id, {}).values():
        watch.close()
