"""Which connection hears which thread, and the routing of thread events to connections.

Thread events are encoded once and the same bytes fan out. Each carries `seq` (Tether extension)
as a top-level member next to `emittedAtMs`. An event whose spec is `broadcast` reaches every
initialized connection; the others reach the thread's subscribers. Of the broadcast specs only
`thread/status/changed` and `thread/closed` come this way: the other lifecycle broadcasts are
sent unsequenced by their handlers (docs/architecture.md, "Notifications").
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable

import orjson

from tether_server.rpc.connection import Connection
from tether_server.threads.handle import ThreadEvent, ThreadHandle

_SEEN_MAX = 4096


def encode_event(event: ThreadEvent) -> bytes:
    return orjson.dumps(
        {
            "method": event.spec.name,
            "params": event.params,
            "emittedAtMs": event.emitted_at_ms,
            "seq": event.seq,
        }
    )


class Subscriptions:
    def __init__(self, all_connections: Callable[[], Iterable[Connection]]) -> None:
        self._all = all_connections
        self._subs: dict[str, dict[int, Connection]] = {}
        self.on_idle: Callable[[str], None] | None = None
        self.on_subscribe: Callable[[str], None] | None = None
        # (thread, connection) → seqs of broadcast events a non-subscribed connection received,
        # so that a later replay (thread/resume afterSeq) does not send them twice.
        self._seen: dict[tuple[str, int], deque[int]] = {}

    def attach(self, handle: ThreadHandle) -> None:
        """Start routing a newly loaded thread's events."""
        thread_id = handle.thread_id
        self._subs.setdefault(thread_id, {})
        handle.add_listener(
            lambda event: self._route(thread_id, event), lambda events: self._route_many(thread_id, events)
        )

    def _route(self, thread_id: str, event: ThreadEvent) -> None:
        method = event.spec.name
        subscribed = self._subs.get(thread_id, {})
        if event.spec.broadcast:
            self._broadcast(thread_id, event, subscribed)
            return
        frame: bytes | None = None
        # A copy: a full outbox drops its connection, which unsubscribes it from this dict.
        for conn in list(subscribed.values()):
            if conn.wants(method):
                if frame is None:
                    frame = encode_event(event)
                conn.send_frame(frame)

    def _route_many(self, thread_id: str, events: list[ThreadEvent]) -> None:
        """`_route` for a run of deltas: each frame encoded once, each connection sent them together."""
        if any(event.spec.broadcast for event in events):
            for event in events:
                self._route(thread_id, event)
            return
        methods = {event.spec.name for event in events}
        encoded: list[tuple[str, bytes]] | None = None
        for conn in list(self._subs.get(thread_id, {}).values()):
            wanted = {method for method in methods if conn.wants(method)}
            if not wanted:
                continue
            if encoded is None:
                encoded = [(event.spec.name, encode_event(event)) for event in events]
            if wanted == methods:
                conn.send_frames([frame for _, frame in encoded])
            else:
                conn.send_frames([frame for method, frame in encoded if method in wanted])

    def _broadcast(self, thread_id: str, event: ThreadEvent, subscribed: dict[int, Connection]) -> None:
        frame: bytes | None = None
        for conn in list(self._all()):
            if conn.wants(event.method):
                frame = frame or encode_event(event)
                conn.send_frame(frame)
                if conn.id not in subscribed:
                    self._seen.setdefault((thread_id, conn.id), deque(maxlen=_SEEN_MAX)).append(event.seq)

    def subscribe(self, thread_id: str, conn: Connection) -> bool:
        """True when the connection was not subscribed before."""
        subs = self._subs.setdefault(thread_id, {})
        fresh = conn.id not in subs
        subs[conn.id] = conn
        if self.on_subscribe is not None:
            self.on_subscribe(thread_id)
        return fresh

    def unsubscribe(self, thread_id: str, conn: Connection) -> bool:
        subs = self._subs.get(thread_id, {})
        removed = subs.pop(conn.id, None) is not None
        if removed and not subs and self.on_idle is not None:
            self.on_idle(thread_id)
        return removed

    def seen_broadcasts(self, thread_id: str, conn: Connection) -> set[int]:
        return set(self._seen.pop((thread_id, conn.id), ()))

    def subscribers(self, thread_id: str) -> list[Connection]:
        return list(self._subs.get(thread_id, {}).values())

    def is_subscribed(self, thread_id: str, conn: Connection) -> bool:
        return conn.id in self._subs.get(thread_id, {})

    def drop_connection(self, conn: Connection) -> None:
        for key in [k for k in self._seen if k[1] == conn.id]:
            del self._seen[key]
        for thread_id in list(self._subs):
            self.unsubscribe(thread_id, conn)

    def forget(self, thread_id: str) -> None:
        self._subs.pop(thread_id, None)
