"""The JSON-RPC engine: decode, gate, correlate, dispatch — and the one place errors become wire errors.

It knows methods only through the method table (`MethodSpec`) and the routes injected by the
composition root; it knows nothing of threads. Params are validated against the spec's model on
the way in (-32602), results against its result model on the way out; each request is answered
through one `Reply`, so never twice.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

import orjson
import structlog

from tether_protocol import ErrorCode, jsonrpc
from tether_protocol.spec import AnyMethodSpec
from tether_protocol.v2.initialize import InitializeParams
from tether_server import log, metrics, telemetry
from tether_server.errors import InvalidRequest, MethodNotFound, Overloaded
from tether_server.rpc.connection import Capabilities, Connection
from tether_server.rpc.context import Deferred, RequestContext
from tether_server.rpc.handshake import Hello
from tether_server.rpc.outgoing import ClientReply, ServerRequests
from tether_server.rpc.routes import AnyRoute, Reply, Route, check_routes, reply_error
from tether_server.rpc.scopes import ScopeLocks
from tether_server.rpc.validation import check_experimental, parse_params

ConnectionHook = Callable[[Connection], Awaitable[None]]

_log = log.get("tether.rpc")
OVERLOADED = "Server overloaded; retry later."


class Forwarder(Protocol):
    """Sends a request for a thread another fleet node owns to that node (rpc.relay)."""

    async def forward(self, conn: Connection, reply: Reply, method: str, params: Any, thread_id: str) -> bool:
        """True when the request was relayed (and answered through `reply`); False: serve it here."""

    def answer(self, conn: Connection, message: dict[str, Any]) -> bool:
        """Route a client's answer to a server request relayed from another node; False if none."""

    async def disconnected(self, conn: Connection) -> None:
        """The client is gone: close its relays."""

    def bind(self, resume: Callable[[Connection, str, int], Awaitable[bool]]) -> None:
        """How to resubscribe a client to a thread whose owner went away (`Dispatcher.resume_for`)."""


class Dispatcher:
    """Serves connections: one reader loop and one writer task each, one task per request."""

    def __init__(
        self,
        methods: Mapping[str, AnyMethodSpec],
        routes: Mapping[str, AnyRoute],
        *,
        unimplemented: frozenset[str] = frozenset(),
        connections: set[Connection] | None = None,
        server_requests: ServerRequests | None = None,
        max_inflight: int = 1024,
        max_inflight_per_connection: int = 128,
        on_initialized: ConnectionHook | None = None,
        on_disconnect: ConnectionHook | None = None,
        forwarder: Forwarder | None = None,
    ) -> None:
        check_routes(methods, routes, unimplemented)
        self._methods = methods
        self._routes = routes
        self.server_requests = server_requests or ServerRequests()
        self._max_inflight = max_inflight
        self._inflight = 0
        self._max_per_connection = max_inflight_per_connection
        self._scopes = ScopeLocks()
        self._on_initialized = on_initialized
        self._on_disconnect = on_disconnect
        self.forwarder = forwarder
        if forwarder is not None:
            forwarder.bind(self.resume_for)
        # Shared with whoever broadcasts (the composition root passes the same set on).
        self.connections: set[Connection] = set() if connections is None else connections
        self._deferred: set[asyncio.Task[None]] = set()
        metrics.watch_queue("inflight", lambda: self._inflight)
        metrics.watch_queue("outbox", lambda: sum(c.outbox_depth for c in self.connections))

    async def serve(self, conn: Connection, hello: Hello | None = None) -> None:
        """Run one connection to its end; requests still queued for it are skipped.

        `hello`: the stdio front already answered this connection's `initialize` (rpc.handshake);
        the connection starts initialized with what that handshake said.
        """
        self.connections.add(conn)
        requests: set[asyncio.Task[None]] = set()
        _log.info("connection.opened", connection_id=conn.id, transport=conn.stream.label)
        transport = metrics.transport_kind(conn.stream.label)
        metrics.connection_opened(transport)
        try:
            async with asyncio.TaskGroup() as group:
                group.create_task(conn.write_loop())
                if hello is not None:
                    await self._adopt(conn, hello)
                await self._read_loop(conn, requests)
                # Let in-flight requests answer before the writer is told to stop.
                if requests:
                    await asyncio.wait(set(requests))
                conn.shutdown(conn.close_reason or "peer closed")
        finally:
            for task in requests:
                task.cancel()
            self.connections.discard(conn)
            if self.forwarder is not None:
                await self.forwarder.disconnected(conn)
            if self._on_disconnect is not None:
                await self._on_disconnect(conn)
            metrics.connection_closed(transport)
            _log.info("connection.closed", connection_id=conn.id, reason=conn.close_reason)

    async def _read_loop(self, conn: Connection, requests: set[asyncio.Task[None]]) -> None:
        frames = conn.stream.frames()
        closed = asyncio.ensure_future(conn.closed.wait())
        try:
            while True:
                nxt = asyncio.ensure_future(anext(frames))
                done, _ = await asyncio.wait({nxt, closed}, return_when=asyncio.FIRST_COMPLETED)
                if nxt not in done:
                    nxt.cancel()
                    return
                try:
                    frame = nxt.result()
                except StopAsyncIteration:
                    return
                task = self.handle_frame(conn, frame)
                if task is not None:
                    requests.add(task)
                    task.add_done_callback(requests.discard)
        finally:
            closed.cancel()

    def handle_frame(self, conn: Connection, frame: bytes) -> asyncio.Task[None] | None:
        """Decode one frame and act on it; returns the request's task when one was started."""
        try:
            message = orjson.loads(frame)
        except orjson.JSONDecodeError:
            _log.warning("frame.unparseable", connection_id=conn.id, size=len(frame))
            reply_error(conn, None, ErrorCode.PARSE_ERROR, "Parse error: invalid JSON")
            return None
        if not isinstance(message, dict):
            reply_error(conn, None, ErrorCode.INVALID_REQUEST, "Invalid request: expected a JSON object")
            return None
        if "method" in message:
            return self._on_method(conn, message)
        if "id" in message and ("result" in message or "error" in message):
            self._on_reply(conn, message)
            return None
        rid = message.get("id")
        reply_error(
            conn,
            rid if jsonrpc.is_request_id(rid) else None,
            ErrorCode.INVALID_REQUEST,
            "Invalid request: a message needs `method`, or `id` with `result` or `error`",
        )
        return None

    def _on_method(self, conn: Connection, message: dict[str, Any]) -> asyncio.Task[None] | None:
        method = message["method"]
        if "id" not in message:
            if method != "initialized":
                _log.debug("notification.ignored", connection_id=conn.id, method=str(method)[:100])
            return None
        rid = message["id"]
        if not jsonrpc.is_request_id(rid):
            reply_error(
                conn, None, ErrorCode.INVALID_REQUEST, "Invalid request: `id` must be a string or an integer"
            )
            return None
        if not isinstance(method, str):
            reply_error(conn, rid, ErrorCode.INVALID_REQUEST, "Invalid request: `method` must be a string")
            return None
        # The per-connection cap comes first: one client's flood must not use up the server's.
        if conn.inflight >= self._max_per_connection:
            limit = {"scope": "connection", "limit": self._max_per_connection}
            metrics.overloaded("connection")
            reply_error(conn, rid, ErrorCode.SERVER_OVERLOADED, OVERLOADED, limit)
            return None
        if self._inflight >= self._max_inflight:
            metrics.overloaded("server")
            reply_error(conn, rid, ErrorCode.SERVER_OVERLOADED, OVERLOADED)
            return None
        self._inflight += 1
        conn.inflight += 1
        task = asyncio.create_task(self._run_request(conn, rid, method, message.get("params")))
        task.add_done_callback(lambda _t: self._request_done(conn))
        return task

    def _request_done(self, conn: Connection) -> None:
        self._inflight -= 1
        conn.inflight -= 1

    def _on_reply(self, conn: Connection, message: dict[str, Any]) -> None:
        if self.forwarder is not None and self.forwarder.answer(conn, message):
            return
        error = message.get("error")
        result = message.get("result")
        reply = ClientReply(
            conn.id,
            result=result if isinstance(result, dict) else ({} if error is None else None),
            error=error if isinstance(error, dict) else None,
        )
        if not self.server_requests.resolve(message["id"], reply):
            _log.debug("reply.unmatched", connection_id=conn.id, request_id=str(message["id"])[:64])

    async def _run_request(
        self, conn: Connection, rid: jsonrpc.RequestId, method: str, raw: Any, reply: Reply | None = None
    ) -> None:
        structlog.contextvars.bind_contextvars(connection_id=conn.id, request_id=rid, method=method)
        known = method if method in self._methods else "unknown"  # bounded metric labels
        reply = reply or Reply(conn, rid, known)
        with telemetry.span(known, {"rpc.system": "jsonrpc", "rpc.method": known}) as span:
            try:
                await self._dispatch(conn, reply, method, raw)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - the one boundary where exceptions become errors
                reply.fail(exc)
            span.set({"rpc.jsonrpc.error_code": reply.error_code})

    async def resume_for(self, conn: Connection, thread_id: str, after_seq: int) -> bool:
        """`thread/resume` with `afterSeq` on the client's behalf, its answer kept from the client
        (which never asked): relayed or served here like the client's own; True when subscribed."""
        reply = _Unsent(conn, "thread/resume", thread_id)
        params = {"threadId": thread_id, "afterSeq": after_seq, "excludeTurns": True}
        await self._run_request(conn, "fleet-follow", "thread/resume", params, reply)
        return reply.sent and reply.error_code is None

    async def _dispatch(self, conn: Connection, reply: Reply, method: str, raw: Any) -> None:
        """Gate, validate, run the handler under its scope lock, answer, then run its after-work."""
        spec = self._methods.get(method)
        route = self._routes.get(method)
        if spec is None or route is None:
            raise MethodNotFound(f"Method not found: {method}")
        if method == "initialize":
            if conn.initialized:
                raise InvalidRequest("Already initialized")
        elif not conn.initialized:
            raise InvalidRequest("Not initialized")
        check_experimental(spec, raw, conn.capabilities.experimental_api)
        params = parse_params(spec, raw)
        thread_id = getattr(params, "thread_id", None)
        if isinstance(thread_id, str):
            log.bind(thread_id=thread_id)  # every line of this request's work names its thread
        key = getattr(params, spec.scope, None) if spec.scope else None
        async with self._scopes.hold(str(key) if key is not None else None):
            if not conn.is_open:
                return
            forwarder = self.forwarder
            # Under the thread's scope lock, so a client's requests for it reach the owner in order.
            if (
                forwarder is not None
                and isinstance(thread_id, str)
                and await forwarder.forward(conn, reply, method, raw, thread_id)
            ):
                return
            ctx = RequestContext(conn, reply.request_id, method)
            outcome = await route.handler(ctx, params)
            if isinstance(outcome, Deferred):
                self._settle_later(reply, spec, outcome)
                return
            if method == "initialize":
                self._initialized(conn, params)
                hook = self._on_initialized
                if hook is not None:
                    # The response must precede what the hook sends (Codex: configWarning after it).
                    ctx.after_response(functools.partial(hook, conn))
            if reply.result(spec, outcome):
                await _run_after(ctx)

    def _settle_later(self, reply: Reply, spec: AnyMethodSpec, deferred: Deferred[Any]) -> None:
        """The request ends now (its scope lock and in-flight slot are released); the answer follows."""
        task = asyncio.create_task(reply.settle(spec, deferred))
        self._deferred.add(task)
        task.add_done_callback(self._deferred.discard)

    @staticmethod
    def _initialized(conn: Connection, params: Any) -> None:
        assert isinstance(params, InitializeParams)
        caps = params.capabilities
        conn.capabilities = Capabilities(
            experimental_api=bool(caps and caps.experimental_api),
            opt_out=frozenset(caps.opt_out_notification_methods or ()) if caps else frozenset(),
        )
        conn.client_name = params.client_info.name
        conn.client_version = params.client_info.version
        conn.initialized = True

    async def _adopt(self, conn: Connection, hello: Hello) -> None:
        """Record a handshake the stdio front answered, as `_initialized` would, then run the hook."""
        conn.capabilities = Capabilities(experimental_api=hello.experimental_api, opt_out=hello.opt_out)
        conn.client_name = hello.client_name
        conn.client_version = hello.client_version
        conn.initialized = True
        _log.debug("connection.initialized_early", connection_id=conn.id, client=hello.client_name)
        method = "initialize"
        telemetry.record(
            method, {"rpc.system": "jsonrpc", "rpc.method": method}, hello.received_ns, hello.answered_ns
        )
        if self._on_initialized is not None:
            await self._on_initialized(conn)


async def _run_after(ctx: RequestContext) -> None:
    """Run a request's after-response work in order; a failure is logged (the answer is out)."""
    for work in ctx.after:
        try:
            pending = work()
            if inspect.isawaitable(pending):
                await pending
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - logged, never a second frame for the request id
            _log.exception("request.after_response_failed")


__all__ = ["OVERLOADED", "Dispatcher", "Overloaded", "RequestContext", "Route"]


class _Unsent(Reply):
    """The answer to a request this node made for a client: recorded, never sent to it."""

    def __init__(self, conn: Connection, method: str, thread_id: str) -> None:
        super().__init__(conn, "fleet-follow", method)
        self.thread_id = thread_id

    def result(self, spec: AnyMethodSpec, value: object) -> bool:
        return isinstance(value, spec.result) and self._claim("result")

    def fail(self, exc: BaseException) -> None:
        # Logged here, not sent: the caller retries the follow.
        _log.warning("fleet.follow_refused", thread_id=self.thread_id, error=str(exc))
        self.error_code = int(ErrorCode.INTERNAL_ERROR)
        self._claim("error")

    def relayed(self, answer: dict[str, Any]) -> None:
        if isinstance(answer.get("error"), dict):
            self.error_code = int(ErrorCode.INTERNAL_ERROR)
        self._claim("relayed")
