"""The HTTP side of the WebSocket listeners: what is answered before (or instead of) the upgrade."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from http import HTTPStatus
from urllib.parse import urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from tether_server import log, metrics
from tether_server.transports.limits import MAX_MESSAGE_BYTES, ConnectionLimits
from tether_server.transports.ws_auth import MULTIPLE_HEADERS, WsAuth, authorize

ProcessRequest = Callable[[ServerConnection, Request], Response | None]
ProcessResponse = Callable[[ServerConnection, Request, Response], Response | None]

HEALTH_PATHS = frozenset({"/readyz", "/healthz"})
METRICS_PATH = "/metrics"
MAX_MESSAGE_HEADER = "x-codex-websocket-max-unfragmented-message-bytes"
_log = log.get("tether.transport")
_EVICTION_NOTE_S = 10.0


def _is_upgrade(request: Request) -> bool:
    return any("websocket" in value.lower() for value in request.headers.get_all("Upgrade"))


def _peer(conn: ServerConnection) -> str:
    address = conn.remote_address
    return str(address[0]) if isinstance(address, tuple) else "unix"


def tcp_gate(auth: WsAuth | None, limits: ConnectionLimits) -> ProcessRequest:
    """The TCP listener's checks, in Codex's order, then the connection caps.

    Origin → 403, health paths → 200, not an upgrade → 400, several `Authorization` headers → 400,
    failed auth → 401, too many connections (in all, or from this peer address) → 503. With
    metrics on, `GET /metrics` (same bearer auth, no upgrade) → the Prometheus exposition.
    """

    def process_request(conn: ServerConnection, request: Request) -> Response | None:
        # Browsers always send Origin; refusing it keeps web pages off a local daemon.
        if "Origin" in request.headers:
            return conn.respond(HTTPStatus.FORBIDDEN, "")
        path = urlsplit(request.path).path
        if path in HEALTH_PATHS:
            return conn.respond(HTTPStatus.OK, "")
        scrape = path == METRICS_PATH and metrics.enabled()
        if not scrape and not _is_upgrade(request):
            return conn.respond(HTTPStatus.BAD_REQUEST, "expected a WebSocket upgrade\n")
        headers = request.headers.get_all("Authorization")
        if len(headers) > 1:
            # One line, no traceback: a malformed request is the client's problem, not ours.
            _log.warning("websocket.refused", peer=_peer(conn), reason=MULTIPLE_HEADERS)
            return conn.respond(HTTPStatus.BAD_REQUEST, MULTIPLE_HEADERS + "\n")
        if auth is not None:
            failure = authorize(auth, headers)
            if failure is not None:
                return conn.respond(HTTPStatus.UNAUTHORIZED, failure)
        if scrape:
            return _metrics_response(conn)
        return _admit(conn, limits)

    return process_request


def fleet_gate(limits: ConnectionLimits) -> ProcessRequest:
    """The fleet listener: a WebSocket upgrade only, within its own connection caps (503 beyond).

    Nothing here authenticates: the fleet secret is proved over the upgraded connection
    (transports.fleet), within the pre-auth timeout, before anything is served.
    """

    def process_request(conn: ServerConnection, request: Request) -> Response | None:
        if "Origin" in request.headers:  # a browser page has no business on the fleet port
            return conn.respond(HTTPStatus.FORBIDDEN, "")
        if not _is_upgrade(request):
            return conn.respond(HTTPStatus.BAD_REQUEST, "expected a WebSocket upgrade\n")
        return _admit(conn, limits)

    return process_request


def _metrics_response(conn: ServerConnection) -> Response:
    response = conn.respond(HTTPStatus.OK, "")
    body = metrics.render()
    # websockets' Headers appends on assignment: drop respond()'s values first.
    del response.headers["Content-Type"]
    del response.headers["Content-Length"]
    response.headers["Content-Type"] = metrics.CONTENT_TYPE
    response.headers["Content-Length"] = str(len(body))
    response.body = body
    return response


def _admit(conn: ServerConnection, limits: ConnectionLimits) -> Response | None:
    limits.settled(conn)
    refusal = limits.admit(_peer(conn), conn.connection_lost_waiter)
    if refusal is None:
        return None
    _log.warning("websocket.refused", peer=_peer(conn), reason=refusal)
    return conn.respond(HTTPStatus.SERVICE_UNAVAILABLE, refusal + "\n")


def counted_tcp(limits: ConnectionLimits) -> type[ServerConnection]:
    """Connections that hold a pre-auth slot from `accept()` until their upgrade is accepted."""
    last_note = -_EVICTION_NOTE_S

    class PreAuthCounted(ServerConnection):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            nonlocal last_note
            super().connection_made(transport)
            evicted = limits.evicted
            limits.arrived(self, _peer(self), self.transport.abort)
            # One line now and then: a flood must not turn into a flood of log lines.
            now = time.monotonic()
            if limits.evicted != evicted and now - last_note >= _EVICTION_NOTE_S:
                last_note = now
                _log.warning(
                    "websocket.pre_auth_full",
                    peer=_peer(self),
                    pending=limits.pending,
                    evicted=limits.evicted,
                )

        def connection_lost(self, exc: Exception | None) -> None:
            limits.settled(self)
            super().connection_lost(exc)

    return PreAuthCounted


def unix_gate(on_shutdown: Callable[[], bool], limits: ConnectionLimits) -> ProcessRequest:
    """The control socket: no auth (file permissions are the gate); `/daemon/shutdown` for managed daemons.

    The total connection cap applies here too (503); its peers are all the same local user.

    Args:
        on_shutdown: asked to stop the server; False when this server is not a managed daemon.
    """

    def process_request(conn: ServerConnection, request: Request) -> Response | None:
        if urlsplit(request.path).path == "/daemon/shutdown":
            if on_shutdown():
                return conn.respond(HTTPStatus.OK, "shutting down")
            return conn.respond(HTTPStatus.FORBIDDEN, "unmanaged server")
        if not _is_upgrade(request):
            return conn.respond(HTTPStatus.BAD_REQUEST, "expected a WebSocket upgrade\n")
        return _admit(conn, limits)

    return process_request


def advertise_limit(limit: int = MAX_MESSAGE_BYTES) -> ProcessResponse:
    """Adds the control socket's message-size header to the 101 response."""

    def process_response(conn: ServerConnection, request: Request, response: Response) -> Response | None:
        if response.status_code == HTTPStatus.SWITCHING_PROTOCOLS:
            response.headers[MAX_MESSAGE_HEADER] = str(limit)
        return None

    return process_response
