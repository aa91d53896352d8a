"""Any daemon serves any thread: a request for a thread another live fleet node owns goes there.

The dispatcher asks `FleetForward.forward` before it serves a request naming a thread. A thread
loaded here is served here. Otherwise, when the database says another live node holds its lease
and advertises a fleet address, the request is relayed (rpc.relay) over this client connection's
fleet connection to that node, opened on first use. When that node cannot be reached (it died and
its lease has not expired yet), the request is served here: loading the thread waits for the
lease to expire and takes it over, as without forwarding.

Requests that only read the store (`thread/read`, lists of turns and items) are answered by any
node, and `thread/fork` places its new thread where the client is connected: none of them is
relayed. A node's own fleet connections never relay further, so a request hops at most once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from tether_protocol.methods import CLIENT_METHODS
from tether_server import log
from tether_server.errors import InvalidRequest
from tether_server.rpc.connection import Connection
from tether_server.rpc.relay import Relay
from tether_server.rpc.routes import Reply
from tether_server.threads.manager import ThreadManager
from tether_server.threads.ownership import Ownership
from tether_server.transports.fleet import FleetAuthError, FleetPeerStream, connect_peer

_log = log.get("tether.fleet")
_SERVED_WHERE_ASKED = frozenset({"thread/fork", "thread/read"})
# Not scoped by its thread (it only lists), yet only the owner has the thread's processes.
_OWNER_ONLY = frozenset({"thread/backgroundTerminals/list"})
CONNECT_TIMEOUT_S = 5.0
FOLLOW_ATTEMPTS = 3
# Resubscribes a client connection to a thread after the given seq; True once it is subscribed.
Resume = Callable[[Connection, str, int], Awaitable[bool]]


def relayed_methods() -> frozenset[str]:
    """The methods that act on a loaded thread: every one scoped by its thread, but reads and fork."""
    scoped = {name for name, spec in CLIENT_METHODS.items() if spec.scope == "thread_id"}
    return frozenset(scoped - _SERVED_WHERE_ASKED) | _OWNER_ONLY


class FleetForward:
    def __init__(self, threads: ThreadManager, ownership: Ownership, secret: bytes) -> None:
        self._threads = threads
        self._ownership = ownership
        self._secret = secret
        self._methods = relayed_methods()
        self._relays: dict[int, dict[str, Relay]] = {}  # client connection id -> node id -> relay
        self._opening: dict[tuple[int, str], asyncio.Lock] = {}
        # A paused owner's relay is noticed (and its pending requests failed) within two leases.
        self._keepalive_s = max(1.0, ownership.leases.duration_s)
        self._resume: Resume | None = None
        self._following: dict[int, set[asyncio.Task[None]]] = {}

    def bind(self, resume: Resume) -> None:
        self._resume = resume

    def _orphaned(self, conn: Connection, threads: dict[str, int]) -> None:
        """The owner of threads this client followed through a relay went away: follow each one
        to wherever it is served next (taken over here or on another node, once the lease
        expires), so the client gets the end of the turn that was running and what comes after,
        as if it had resumed with `afterSeq`."""
        if self._resume is None or not conn.is_open:
            return
        tasks = self._following.setdefault(conn.id, set())
        for thread_id, after in sorted(threads.items()):
            task = asyncio.create_task(self._follow(conn, thread_id, after))
            tasks.add(task)
            task.add_done_callback(tasks.discard)

    async def _follow(self, conn: Connection, thread_id: str, after: int) -> None:
        assert self._resume is not None
        for _ in range(FOLLOW_ATTEMPTS):
            if not conn.is_open:
                return
            if await self._resume(conn, thread_id, after):
                _log.info("fleet.followed", thread_id=thread_id, connection_id=conn.id)
                return
            # Another node was taking the thread over just then: ask again a beat later.
            await asyncio.sleep(self._keepalive_s / 3)
        _log.warning("fleet.follow_failed", thread_id=thread_id, connection_id=conn.id)

    async def forward(self, conn: Connection, reply: Reply, method: str, params: Any, thread_id: str) -> bool:
        if (
            method not in self._methods
            or isinstance(conn.stream, FleetPeerStream)
            or self._threads.get(thread_id) is not None
        ):
            return False
        owner = await self._ownership.owner_elsewhere(thread_id)
        if owner is None or owner[1] is None:
            return False
        relay = await self._relay(conn, *owner)
        if relay is None:
            return False
        _log.debug("fleet.relayed", method=method, thread_id=thread_id, node=relay.node)
        await relay.forward(reply, method, params, thread_id)
        return True

    async def _relay(self, conn: Connection, node: str, address: str | None) -> Relay | None:
        key = (conn.id, node)
        lock = self._opening.setdefault(key, asyncio.Lock())
        async with lock:
            relays = self._relays.setdefault(conn.id, {})
            relay = relays.get(node)
            if relay is not None and not relay.ended:
                return relay
            assert address is not None
            try:
                ws = await connect_peer(
                    address, self._secret, timeout_s=CONNECT_TIMEOUT_S, keepalive_s=self._keepalive_s
                )
            except FleetAuthError as exc:
                _log.error("fleet.peer_refused", node=node, address=address, error=str(exc))
                raise InvalidRequest(
                    f"fleet node {node!r} owns this thread but this node could not authenticate with "
                    "it: the nodes' --fleet-secret-file must hold the same secret"
                ) from None
            except ConnectionError as exc:
                # Most likely dead with its lease not yet expired: serving here waits for the expiry.
                _log.warning("fleet.peer_unreachable", node=node, address=address, error=str(exc))
                return None
            relay = Relay(conn, node, ws, self._orphaned)
            try:
                await relay.open()
            except (ConnectionError, OSError, ValueError) as exc:
                _log.warning("fleet.relay_failed", node=node, error=str(exc))
                await relay.close()
                return None
            if not conn.is_open:
                await relay.close()
                return None
            relays[node] = relay
            return relay

    def answer(self, conn: Connection, message: dict[str, Any]) -> bool:
        return any(relay.answer(message) for relay in self._relays.get(conn.id, {}).values())

    async def disconnected(self, conn: Connection) -> None:
        for task in self._following.pop(conn.id, set()):
            task.cancel()
        relays = self._relays.pop(conn.id, {})
        for node in relays:
            self._opening.pop((conn.id, node), None)
        for relay in relays.values():
            await relay.close()
