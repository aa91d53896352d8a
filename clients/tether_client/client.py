"""The async client: requests, notifications and server requests over any Transport."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import orjson

from tether_client.approvals import DEFERRED, ApprovalHandler, decline_all, safe_default
from tether_client.errors import RpcError, TetherClientError, TransportClosed
from tether_client.messages import Notification, ServerRequest
from tether_client.subscription import NotificationFilter, Subscription
from tether_client.transport import StdioTransport, Transport
from tether_client.turns import TurnInput, TurnStream, user_input
from tether_protocol.common import WireModel
from tether_protocol.jsonrpc import RequestId
from tether_protocol.methods import CLIENT_METHODS
from tether_protocol.spec import MethodSpec
from tether_protocol.v2 import thread_lifecycle as tl
from tether_protocol.v2 import turn as tu
from tether_protocol.v2.initialize import (
    ClientInfo,
    InitializeCapabilities,
    InitializeParams,
    InitializeResponse,
)

ResultT = TypeVar("ResultT", bound=WireModel)
ParamsT = TypeVar("ParamsT", bound=WireModel)
Params = WireModel | Mapping[str, Any] | None

_METHOD_NOT_FOUND = -32601


def _wire(params: Params) -> dict[str, Any] | None:
    if params is None:
        return None
    if isinstance(params, WireModel):
        # Only what the caller set: defaults such as experimentalRawEvents=false are gated fields.
        return params.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return dict(params)


class Client:
    """A JSON-RPC client of a Tether (or Codex) app-server.

    Use `Client.spawn()` for a child `tether app-server` over stdio, or `Client.connect()` for a
    running daemon; both return an initialized client. Server requests (approvals) go to
    `approval_handler`; the default declines everything, so a turn never waits on nobody.
    """

    def __init__(self, transport: Transport, *, approval_handler: ApprovalHandler | None = None) -> None:
        self.transport = transport
        self.approval_handler: ApprovalHandler = approval_handler or decline_all
        self._ids = itertools.count(1)
        self._pending: dict[RequestId, tuple[str, asyncio.Future[dict[str, Any]]]] = {}
        self._subscriptions: list[Subscription] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self.closed = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    # ---- construction ---------------------------------------------------------------------------

    @classmethod
    async def spawn(
        cls,
        command: Sequence[str] | None = None,
        *,
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        approval_handler: ApprovalHandler | None = None,
        experimental_api: bool = False,
    ) -> Client:
        """Start `tether app-server` (or `command`) as a child and initialize a connection to it."""
        transport = await StdioTransport.spawn(command, cwd=cwd, env=env)
        client = cls(transport, approval_handler=approval_handler)
        await client._initialize_or_close(experimental_api)
        return client

    @classmethod
    async def connect(
        cls,
        address: str | Path,
        *,
        token: str | None = None,
        approval_handler: ApprovalHandler | None = None,
        experimental_api: bool = False,
    ) -> Client:
        """Connect to a running daemon: a `ws://`/`wss://` URL, or a unix socket (`unix://PATH` or a path).

        `unix://` alone is the daemon's control socket under `$TETHER_HOME` (default `~/.tether`).
        Without `token`, a loopback `ws://`/`wss://` URL is sent the token the daemon generated in
        `$TETHER_HOME/ws-token`; any token goes to a loopback port only once the listener there is
        shown to run as this user (or root): `ForeignListener` otherwise.
        """
        from tether_client.websocket import WebSocketTransport, default_socket_path

        text = str(address)
        if text.startswith(("ws://", "wss://")):
            transport: Transport = await WebSocketTransport.connect(text, token=token)
        else:
            path = text.removeprefix("unix://") or default_socket_path()
            transport = await WebSocketTransport.connect_unix(path, token=token)
        client = cls(transport, approval_handler=approval_handler)
        await client._initialize_or_close(experimental_api)
        return client

    async def _initialize_or_close(self, experimental_api: bool) -> None:
        try:
            await self.initialize(experimental_api=experimental_api)
        except BaseException:
            await self.close()
            raise

    async def initialize(
        self, *, name: str = "tether_client", version: str = "0.1.0", experimental_api: bool = False
    ) -> InitializeResponse:
        """The `initialize` handshake, then the `initialized` notification."""
        params = InitializeParams(
            client_info=ClientInfo(name=name, title=None, version=version),
            capabilities=InitializeCapabilities(experimental_api=experimental_api),
        )
        result = await self.request_as("initialize", params, InitializeResponse)
        await self.notify("initialized")
        return result

    # ---- requests -------------------------------------------------------------------------------

    async def request_raw(self, method: str, params: Params = None) -> dict[str, Any]:
        """Send a request and return its `result` object as received; raises RpcError on an error."""
        if self.closed.is_set():
            raise TransportClosed("connection closed")
        request_id = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = (method, future)
        message: dict[str, Any] = {"id": request_id, "method": method}
        wire = _wire(params)
        if wire is not None:
            message["params"] = wire
        try:
            await self.transport.send(orjson.dumps(message))
            return await future
        finally:
            self._pending.pop(request_id, None)

    async def request(self, method: str, params: Params = None) -> WireModel:
        """Send a request of the method table; the result comes back as the table's result model."""
        spec = CLIENT_METHODS.get(method)
        if spec is None:
            raise TetherClientError(f"unknown method {method!r}; use request_raw")
        if isinstance(params, Mapping):
            params = spec.params.model_validate(params)
        result: WireModel = spec.result.model_validate(await self.request_raw(method, params))
        return result

    async def call(self, spec: MethodSpec[ParamsT, ResultT], params: ParamsT | Mapping[str, Any]) -> ResultT:
        """Call a method of the table by its spec (`tether_protocol.methods.THREAD_READ` …), fully typed."""
        typed = spec.params.model_validate(params) if isinstance(params, Mapping) else params
        return spec.result.model_validate(await self.request_raw(spec.name, typed))

    async def request_as(self, method: str, params: Params, result_type: type[ResultT]) -> ResultT:
        """`request` with the result model named, for type checkers."""
        return result_type.model_validate(await self.request_raw(method, params))

    async def notify(self, method: str, params: Params = None) -> None:
        """Send a notification (no answer)."""
        message: dict[str, Any] = {"method": method}
        wire = _wire(params)
        if wire is not None:
            message["params"] = wire
        await self.transport.send(orjson.dumps(message))

    async def respond(self, request_id: RequestId, result: Params) -> None:
        """Answer a server request (for handlers that returned DEFERRED)."""
        await self.transport.send(orjson.dumps({"id": request_id, "result": _wire(result) or {}}))

    async def respond_error(self, request_id: RequestId, code: int, message: str) -> None:
        """Refuse a server request with a JSON-RPC error."""
        error = {"code": code, "message": message}
        await self.transport.send(orjson.dumps({"id": request_id, "error": error}))

    # ---- convenience calls ----------------------------------------------------------------------

    async def start_thread(
        self, params: tl.ThreadStartParams | None = None, **fields: Any
    ) -> tl.ThreadStartResponse:
        """`thread/start`; `fields` are ThreadStartParams fields (snake_case), e.g. `cwd=`, `model=`."""
        body = params or tl.ThreadStartParams.model_validate(fields)
        return await self.request_as("thread/start", body, tl.ThreadStartResponse)

    async def start_turn(self, thread_id: str, input: TurnInput, **fields: Any) -> tu.TurnStartResponse:
        """`turn/start` with text or UserInput items; `fields` are TurnStartParams fields."""
        body = tu.TurnStartParams.model_validate(
            {**fields, "thread_id": thread_id, "input": user_input(input)}
        )
        return await self.request_as("turn/start", body, tu.TurnStartResponse)

    async def interrupt_turn(self, thread_id: str, turn_id: str) -> None:
        """`turn/interrupt`: the turn ends with status `interrupted` (its turn/completed follows)."""
        await self.request_raw("turn/interrupt", tu.TurnInterruptParams(thread_id=thread_id, turn_id=turn_id))

    def run_turn(self, thread_id: str, input: TurnInput, **fields: Any) -> TurnStream:
        """Start a turn and iterate its notifications, ending with its `turn/completed`.

        The subscription opens now, so nothing is missed; the turn starts on first iteration.
        """
        return TurnStream(self, thread_id, input, fields)

    def notifications(self, accept: NotificationFilter | None = None) -> Subscription:
        """Every notification from now on (that `accept` lets through), as an async iterator."""
        subscription = Subscription(self._detach, accept)
        if self.closed.is_set():
            subscription.end()
        else:
            self._subscriptions.append(subscription)
        return subscription

    def _detach(self, subscription: Subscription) -> None:
        with contextlib.suppress(ValueError):
            self._subscriptions.remove(subscription)

    # ---- lifecycle ------------------------------------------------------------------------------

    async def close(self) -> None:
        """Close the transport (a spawned server exits) and end every subscription."""
        await self.transport.close()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader
        for task in list(self._tasks):
            task.cancel()

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    # ---- receiving ------------------------------------------------------------------------------

    async def _read(self) -> None:
        try:
            async for frame in self.transport.frames():
                self._dispatch(orjson.loads(frame))
        finally:
            self._on_closed()

    def _dispatch(self, message: Any) -> None:
        if not isinstance(message, dict):
            return
        if "method" in message and "id" in message:
            self._spawn(self._answer(ServerRequest.from_message(message)))
        elif "method" in message:
            notification = Notification.from_message(message)
            for subscription in list(self._subscriptions):
                subscription.offer(notification)
        elif message.get("id") in self._pending:
            method, future = self._pending.pop(message["id"])
            if future.done():
                return
            if "error" in message:
                future.set_exception(RpcError(method, message["error"] or {}))
            else:
                future.set_result(message.get("result") or {})

    def _on_closed(self) -> None:
        self.closed.set()
        for method, future in self._pending.values():
            if not future.done():
                future.set_exception(TransportClosed(f"{method}: connection closed before the answer"))
        self._pending.clear()
        for subscription in self._subscriptions:
            subscription.end()
        self._subscriptions.clear()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(self, request: ServerRequest) -> None:
        try:
            result: Any = await self.approval_handler(request)
        except Exception:  # noqa: BLE001 - a broken handler must still not leave the turn waiting
            result = None
        if result is DEFERRED:
            return
        if result is None:
            result = safe_default(request)
        with contextlib.suppress(TransportClosed):
            if result is None:
                await self.respond_error(
                    request.id, _METHOD_NOT_FOUND, f"unsupported request {request.method}"
                )
            else:
                await self.respond(request.id, result)
