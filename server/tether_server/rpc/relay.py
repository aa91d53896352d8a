"""A client's requests for a thread another fleet node owns, relayed to that node and back.

One relay per client connection and owner node: an authenticated fleet connection (opened by
`transports.fleet.connect_peer`) that the owner serves exactly as it serves a client, so its
subscriptions, `seq` numbering, `afterSeq` replay and server requests work unchanged. This side
only renames ids: a forwarded request gets the relay's own id (the client's may collide with
another client's), and a server request the owner sends gets a fresh id here, so the client's
answer can be told from answers to this node's own requests and sent back under the owner's id.

Everything the owner sends is handled by one reader, in the order it was sent: the answer to a
request is written to the client in its place among the notifications (a `thread/resume`
answer before the events it replays), never later by the task that waits for it.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
from collections.abc import Callable
from typing import Any

import orjson
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from tether_protocol import jsonrpc
from tether_protocol.server_methods import THREAD_CLOSED, THREAD_STATUS_CHANGED
from tether_protocol.v2.notifications import ThreadStatusChangedNotification
from tether_protocol.v2.thread import ThreadStatusSystemError
from tether_server import log
from tether_server.errors import InternalError
from tether_server.rpc.connection import Connection
from tether_server.rpc.fleet_wide import FLEET_WIDE
from tether_server.rpc.outgoing import encode, send_notification
from tether_server.rpc.routes import Reply

_log = log.get("tether.fleet")
_ID_BITS = 53
OPEN_TIMEOUT_S = 5.0


def gone(node: str) -> InternalError:
    return InternalError(
        f"fleet node {node!r}, which owns this thread, went away before answering; the thread is "
        "taken over once its lease expires: retry the request"
    )


# Called when the owner went away: each thread the client was subscribed to through the relay,
# with the last seq the client got for it, so that its subscription can follow the thread.
Orphans = Callable[[Connection, dict[str, int]], None]


class Relay:
    """One client connection's link to one owner node."""

    def __init__(
        self, client: Connection, node: str, ws: ClientConnection, orphans: Orphans | None = None
    ) -> None:
        self.client = client
        self.node = node
        self._ws = ws
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[Reply, asyncio.Future[None]]] = {}
        self._asked: dict[int, Any] = {}  # the client's id for a server request -> the owner's id
        self._reader: asyncio.Task[None] | None = None
        self._sending: set[asyncio.Task[None]] = set()
        self._threads: set[str] = set()  # the threads the client acted on through here
        self._subscribed: dict[str, int] = {}  # thread -> the last seq the client got for it
        self._orphans = orphans
        self._closing = False
        self.ended = False

    async def open(self) -> None:
        """Initialize the relayed connection as the client initialized its own."""
        caps = self.client.capabilities
        params = {
            "clientInfo": {"name": self.client.client_name, "version": self.client.client_version},
            "capabilities": {
                "experimentalApi": caps.experimental_api,
                "optOutNotificationMethods": sorted(caps.opt_out),
            },
        }
        try:
            async with asyncio.timeout(OPEN_TIMEOUT_S):
                await self._ws.send(encode(jsonrpc.request(0, "initialize", params)).decode())
                while True:  # the owner answers initialize before anything it sends this connection
                    message = orjson.loads(await self._ws.recv())
                    if isinstance(message, dict) and message.get("id") == 0:
                        break
        except (ConnectionClosed, TimeoutError) as exc:
            raise ConnectionError(f"fleet node {self.node!r} closed the relay: {exc}") from None
        if "error" in message:
            raise ConnectionError(f"fleet node {self.node!r} refused the relay: {message['error']}")
        await self._ws.send(encode({"method": "initialized"}).decode())
        self._reader = asyncio.create_task(self._read())

    async def forward(self, reply: Reply, method: str, params: Any, thread_id: str) -> None:
        """Send the request on; returns once its answer was written to the client (or failed)."""
        if self.ended:
            raise gone(self.node)
        if method == "thread/unsubscribe":
            self._threads.discard(thread_id)
            self._subscribed.pop(thread_id, None)
        else:
            self._threads.add(thread_id)
        rid = next(self._ids)
        done = asyncio.get_running_loop().create_future()
        self._pending[rid] = (reply, done)
        try:
            await self._ws.send(encode(jsonrpc.request(rid, method, params)).decode())
        except ConnectionClosed:
            self._pending.pop(rid, None)
            raise gone(self.node) from None
        await done
        if method == "thread/resume" and reply.error_code is None and reply.sent:
            self._subscribed.setdefault(thread_id, 0)

    def answer(self, message: dict[str, Any]) -> bool:
        """The client answered a server request the owner sent through here: send it back."""
        rid = message.get("id")
        if isinstance(rid, bool) or not isinstance(rid, int) or rid not in self._asked:
            return False
        owner_id = self._asked.pop(rid)
        out: dict[str, Any] = {key: message[key] for key in ("result", "error") if key in message}
        task = asyncio.create_task(self._send_quietly(encode({"id": owner_id, **out})))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)
        return True

    async def _send_quietly(self, frame: bytes) -> None:
        try:
            await self._ws.send(frame.decode())
        except ConnectionClosed:
            _log.warning("relay.answer_lost", node=self.node, connection_id=self.client.id)

    async def _read(self) -> None:
        try:
            async for frame in self._ws:
                if isinstance(frame, str):
                    self._deliver(frame)
        except ConnectionClosed:
            pass
        finally:
            self._end()

    def _deliver(self, frame: str) -> None:
        try:
            message = orjson.loads(frame)
        except orjson.JSONDecodeError:
            _log.warning("relay.unparseable", node=self.node, size=len(frame))
            return
        if not isinstance(message, dict):
            return
        if "method" in message:
            if "id" in message:  # a server request: the client answers it under our id
                ours = secrets.randbits(_ID_BITS)
                self._asked[ours] = message["id"]
                message["id"] = ours
                self.client.send_frame(encode(message))
            elif message["method"] in FLEET_WIDE:
                pass  # news for every client of the fleet: the client's node hears it too
            elif _thread_scoped(message):
                self._note(message)
                self.client.send_frame(frame.encode())
            # Anything else is the owner's own node-wide news (config warnings, account or
            # catalogue changes): the client hears that from the node it is connected to.
            return
        rid = message.get("id")
        waiting = self._pending.pop(rid, None) if isinstance(rid, int) else None
        if waiting is None:
            return
        reply, done = waiting
        reply.relayed(message)
        if not done.done():
            done.set_result(None)

    def _end(self) -> None:
        self.ended = True
        for reply, done in self._pending.values():
            reply.fail(gone(self.node))
            if not done.done():
                done.set_result(None)
        self._pending.clear()
        self._asked.clear()
        if not self._closing:
            # The owner went away: its threads' events stop here, which the client must not
            # mistake for a quiet thread (as when a node loses a lease).
            for thread_id in sorted(self._threads):
                note = ThreadStatusChangedNotification(thread_id=thread_id, status=ThreadStatusSystemError())
                send_notification([self.client], THREAD_STATUS_CHANGED, note)
            if self._subscribed and self._orphans is not None:
                self._orphans(self.client, dict(self._subscribed))

    def _note(self, message: dict[str, Any]) -> None:
        """Track what the client has of each thread it is subscribed to through here."""
        params = message["params"]
        thread_id = params["threadId"]
        if thread_id not in self._subscribed:
            return
        seq = message.get("seq")
        if isinstance(seq, int) and not isinstance(seq, bool):
            self._subscribed[thread_id] = max(self._subscribed[thread_id], seq)
        status = params.get("status")
        # The owner ended the subscription itself (it lost the thread, or closed it).
        if message["method"] == THREAD_CLOSED.name or (
            message["method"] == THREAD_STATUS_CHANGED.name
            and isinstance(status, dict)
            and status.get("type") == "systemError"
        ):
            del self._subscribed[thread_id]

    async def close(self) -> None:
        self._closing = self.ended = True
        await self._ws.close()
        if self._reader is not None:
            await self._reader


def _thread_scoped(message: dict[str, Any]) -> bool:
    params = message.get("params")
    return isinstance(params, dict) and isinstance(params.get("threadId"), str)
