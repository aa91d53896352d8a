"""Encoding outgoing messages once, and server→client requests whose first answer wins."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import orjson

from tether_protocol import jsonrpc
from tether_protocol.common import WireModel
from tether_protocol.spec import NotificationSpec, WireParams
from tether_server import log
from tether_server.rpc.connection import Connection

_log = log.get("tether.rpc")
P = TypeVar("P", bound=WireModel)
# Ids stay integers (Codex's own are) but below 2**53, so JavaScript clients read them exactly.
_ID_BITS = 53


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def encode(message: dict[str, Any]) -> bytes:
    return orjson.dumps(message)


def encode_notification(
    method: str, params: dict[str, Any] | None, extra: dict[str, Any] | None = None
) -> bytes:
    """Encode once; the same bytes fan out to every subscriber."""
    message = jsonrpc.notification(method, params, now_ms())
    if extra:
        message.update(extra)
    return encode(message)


def send_notification(
    conns: Iterable[Connection], spec: NotificationSpec[P], params: P | WireParams[P]
) -> None:
    """Send `spec` with `params` to those of `conns` that did not opt out of it.

    mypy holds `params` to the spec's model; the check below holds callers that mypy cannot see
    through (an `Any` on the way), before anything is sent.
    """
    if not isinstance(params, (spec.params, WireParams)):
        raise TypeError(f"{spec.name} takes {spec.params.__name__}, not {type(params).__name__}")
    method = spec.name
    frame: bytes | None = None
    for conn in conns:
        if conn.wants(method):
            if frame is None:
                wire = params if isinstance(params, WireParams) else params.wire()
                frame = encode_notification(method, wire)
            conn.send_frame(frame)


@dataclass
class ClientReply:
    """A client's answer to a server request: `result` or `error`, and who answered."""

    connection_id: int
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


@dataclass
class PendingRequest:
    id: int
    method: str
    params: dict[str, Any]
    future: asyncio.Future[ClientReply]
    sent_to: set[int] = field(default_factory=set)

    def frame(self) -> bytes:
        return encode(jsonrpc.request(self.id, self.method, self.params))


class ServerRequests:
    """Server→client requests.

    The same request may be sent to several connections; the first reply from one of them resolves
    it and later replies to the same id are ignored. Unlike Codex's counter from 0, ids are random:
    a client that was never sent a request can neither guess its id nor answer it.
    """

    def __init__(self) -> None:
        self._pending: dict[int, PendingRequest] = {}

    def _new_id(self) -> int:
        while True:
            candidate = secrets.randbits(_ID_BITS)
            if candidate not in self._pending:
                return candidate

    def create(self, method: str, params: dict[str, Any]) -> PendingRequest:
        loop = asyncio.get_running_loop()
        req = PendingRequest(self._new_id(), method, params, loop.create_future())
        self._pending[req.id] = req
        req.future.add_done_callback(lambda _f: self._pending.pop(req.id, None))
        return req

    def send(self, req: PendingRequest, conns: Iterable[Connection]) -> None:
        frame = req.frame()
        for conn in conns:
            if conn.initialized and conn.send_frame(frame):
                req.sent_to.add(conn.id)

    def resolve(self, request_id: object, reply: ClientReply) -> bool:
        """Route a client's response; False when nothing it was sent waits for that id."""
        if not isinstance(request_id, int) or isinstance(request_id, bool):
            return False
        req = self._pending.get(request_id)
        if req is None or req.future.done():
            return False
        if reply.connection_id not in req.sent_to:
            # Only a client the request was sent to (a subscriber of its thread) may answer it.
            _log.warning("reply.not_addressed", connection_id=reply.connection_id, method=req.method)
            return False
        req.future.set_result(reply)
        return True

    def pending(self) -> list[PendingRequest]:
        return list(self._pending.values())
