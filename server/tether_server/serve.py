"""Listener orchestration: run the app on any mix of stdio, the control socket and WebSocket listeners.

Every connection, whatever its transport, is one `rpc.Connection` served by the one Dispatcher.
SIGTERM/SIGINT/SIGHUP start a drain (protocol.md §1.5): connections stay, new turns are refused,
running turns finish, then the server stops; a second SIGTERM/SIGINT stops it at once.
"""

from __future__ import annotations

import asyncio
import os
import signal
import ssl
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether_server import log
from tether_server.app import App
from tether_server.errors import ConfigError
from tether_server.rpc.connection import Connection
from tether_server.rpc.dispatcher import Dispatcher
from tether_server.rpc.handshake import Hello
from tether_server.serve_options import Listen, ServeOptions, lock_pid_file
from tether_server.transports import unix
from tether_server.transports.limits import ConnectionLimits, raise_open_files
from tether_server.transports.parent import ParentWatch
from tether_server.transports.stdio import StdioStream
from tether_server.transports.stdio_first import Prefill
from tether_server.transports.ws_auth import CapabilityToken

# websockets and the transports built on it load with the first WebSocket, unix-socket or fleet
# listener: a stdio daemon answers its first `thread/start` without them (issue 31).
if TYPE_CHECKING:
    from websockets.asyncio.server import Server, ServerConnection

    from tether_server.transports.http import ProcessRequest
    from tether_server.transports.websocket import WebSocketStream

_log = log.get("tether.serve")
_STOP_GRACE_S = 10.0


class Listeners:
    """The running listeners of one app, their connections, and the drain/stop state machine."""

    def __init__(self, app: App, options: ServeOptions, front: StdioFront | None = None) -> None:
        self.app = app
        self.options = options
        self._front = front
        self._dispatcher: Dispatcher | None = None
        self._ws_servers: list[_Listener] = []
        self._sockets: list[Path] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._stop = asyncio.Event()
        self._drain: asyncio.Task[None] | None = None
        self._signals = 0
        self._limits = ConnectionLimits(options.max_connections, options.max_connections_per_peer)
        # Other nodes' connections are counted apart: a client flood must not cut the fleet off.
        self._fleet_limits = ConnectionLimits(options.max_connections, options.max_connections_per_peer)

    async def run(self) -> int:
        """Serve until stopped; returns the exit status."""
        pid_fd = lock_pid_file(self.options.pid_file) if self.options.pid_file else None
        self._dispatcher = await self.app.start()
        try:
            await self._open_listeners()
            self._install_signals()
            for name in self._front.signals if self._front else ():
                self._on_signal(name)  # arrived after the stdio front's early answer
            await self._stop.wait()
        finally:
            await self._shut_down()
            if pid_fd is not None and self.options.pid_file is not None:
                self.options.pid_file.unlink(missing_ok=True)
                os.close(pid_fd)
        return 0

    # ---- listeners ---------------------------------------------------------------------------

    async def _open_listeners(self) -> None:
        if any(lst.scheme != "stdio" for lst in self.options.listens):
            files = raise_open_files(self._limits.open_files_wanted())
            _log.debug("serve.open_files", soft_limit=files)
        # First, so a client's first answered request means other nodes can relay here. Always: a
        # node restarted without a listener must not keep advertising its old one.
        address = None
        if self.options.fleet_listen is not None:
            address = await self._open_fleet(self.options.fleet_listen)
        await self.app.advertise(address)
        for lst in self.options.listens:
            if lst.scheme == "stdio":
                self._spawn(self._serve_stdio())
            elif lst.scheme == "unix":
                await self._open_unix(lst)
            else:
                await self._open_tcp(lst)

    async def _open_fleet(self, lst: Listen) -> str:
        """The fleet listener: other nodes relay their clients' requests for our threads here."""
        from tether_server.transports.http import fleet_gate

        gate = fleet_gate(self._fleet_limits)
        server, host, port = await self._listen_tcp(
            self._serve_fleet, lst, gate, self._fleet_limits, "--fleet-listen", None
        )
        address = f"ws://{host}:{port}"
        self._ws_servers.append(_Listener(server, f"fleet {host}:{port}"))
        _banner(
            "tether app-server (fleet)",
            f"listening on: {address}",
            "auth: the fleet secret, proved both ways (--fleet-secret-file)",
        )
        return address

    async def _open_unix(self, lst: Listen) -> None:
        from websockets.asyncio.server import unix_serve

        from tether_server.transports.http import advertise_limit, unix_gate
        from tether_server.transports.websocket import CLOSE_GRACE_S

        assert lst.path is not None
        sock = unix.bind(lst.path, default=lst.default_path)
        self._sockets.append(lst.path)
        server = await unix_serve(
            self._serve_ws,
            sock=sock,
            process_request=unix_gate(self.request_stop, self._limits),
            process_response=advertise_limit(self.options.max_message_bytes),
            max_size=self.options.max_message_bytes,
            max_queue=self.options.receive_queue,
            compression=None,
            open_timeout=self.options.pre_auth_timeout_s,
            close_timeout=CLOSE_GRACE_S,
        )
        self._ws_servers.append(_Listener(server, f"unix {lst.path}"))
        _banner("tether app-server (control socket)", f"listening on: unix://{lst.path}")

    async def _listen_tcp(
        self,
        handler: Callable[[ServerConnection], Awaitable[None]],
        lst: Listen,
        gate: ProcessRequest,
        limits: ConnectionLimits,
        flag: str,
        tls: ssl.SSLContext | None,
    ) -> tuple[Server, str, int]:
        """A WebSocket server on `lst`'s TCP address; (server, host as a URL writes it, bound port)."""
        from websockets.asyncio.server import serve

        from tether_server.transports.http import counted_tcp
        from tether_server.transports.websocket import CLOSE_GRACE_S

        try:
            server = await serve(
                handler,
                lst.host,
                lst.port,
                process_request=gate,
                create_connection=counted_tcp(limits),
                ssl=tls,
                max_size=self.options.max_message_bytes,
                max_queue=self.options.receive_queue,
                compression=None,
                open_timeout=self.options.pre_auth_timeout_s,
                close_timeout=CLOSE_GRACE_S,
            )
        except OSError as exc:
            raise ConfigError(f"cannot listen on {lst.host}:{lst.port}: {exc.strerror}", key=flag) from exc
        port = int(server.sockets[0].getsockname()[1])
        return server, f"[{lst.host}]" if ":" in lst.host else lst.host, port

    async def _open_tcp(self, lst: Listen) -> None:

        from tether_server.transports.http import tcp_gate

        tls = None
        if lst.scheme == "wss":
            assert self.options.tls_cert is not None and self.options.tls_key is not None
            tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            tls.load_cert_chain(self.options.tls_cert, self.options.tls_key)
        gate = tcp_gate(self.options.auth, self._limits)
        server, host, port = await self._listen_tcp(self._serve_ws, lst, gate, self._limits, "--listen", tls)
        http = "https" if tls else "http"
        self._ws_servers.append(_Listener(server, f"{lst.scheme} {host}:{port}"))
        _banner(
            "tether app-server (WebSockets)",
            f"listening on: {lst.scheme}://{host}:{port}",
            f"readyz: {http}://{host}:{port}/readyz",
            f"healthz: {http}://{host}:{port}/healthz",
            *self._auth_lines(f"{lst.scheme}://{host}:{port}"),
        )

    def _auth_lines(self, url: str) -> list[str]:
        auth = self.options.auth
        if isinstance(auth, CapabilityToken) and auth.generated:
            return [f"auth: bearer token in {auth.source} (send `Authorization: Bearer <token>`)"]
        if auth is None:
            _log.warning("websocket.unauthenticated", listener=url)
            return [
                f"WARNING: {url} accepts unauthenticated connections (--ws-auth none): "
                "any local process can drive this daemon"
            ]
        return []

    # ---- connections -------------------------------------------------------------------------

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _serve_stdio(self) -> None:
        assert self._dispatcher is not None
        watch = ParentWatch.start(self._stop.set)
        front = self._front
        stream = StdioStream(prefill=front.prefill if front else None)
        try:
            await self._dispatcher.serve(
                Connection(stream, outbox_capacity=self.options.outbox_capacity),
                hello=front.hello if front else None,
            )
        finally:
            # EOF on stdin ends a stdio server, as it always has, even when serving failed.
            if watch is not None:
                watch.close()
            self._stop.set()

    async def _serve_ws(self, ws: ServerConnection) -> None:
        from tether_server.transports.websocket import WebSocketStream

        peer = ws.remote_address
        label = f"ws {peer[0]}:{peer[1]}" if isinstance(peer, tuple) else "unix"
        await self._serve_stream(WebSocketStream(ws, label))

    async def _serve_fleet(self, ws: ServerConnection) -> None:
        """Another node's connection, once it proved the fleet secret: served as a client's."""
        from tether_server.transports.fleet import FleetPeerStream, accept_peer

        assert self.options.fleet_secret is not None
        peer = ws.remote_address
        where = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else "?"
        if not await accept_peer(ws, self.options.fleet_secret, self.options.pre_auth_timeout_s):
            _log.warning("fleet.peer_refused", peer=where)
            return
        await self._serve_stream(FleetPeerStream(ws, f"fleet {where}"))

    async def _serve_stream(self, stream: WebSocketStream) -> None:
        assert self._dispatcher is not None
        conn = Connection(stream, outbox_capacity=self.options.outbox_capacity)
        serving = asyncio.create_task(self._dispatcher.serve(conn))
        closed = asyncio.create_task(conn.closed.wait())
        try:
            await asyncio.wait({serving, closed}, return_when=asyncio.FIRST_COMPLETED)
            if not serving.done():
                await _finish(serving, stream)
        finally:
            closed.cancel()

    # ---- stopping ----------------------------------------------------------------------------

    def request_stop(self) -> bool:
        """Drain then stop, as on SIGTERM; False when this server is not a managed daemon."""
        if self.options.pid_file is None:
            return False
        self._on_signal("shutdown-request")
        return True

    def _install_signals(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            loop.add_signal_handler(sig, self._on_signal, sig.name)

    def _on_signal(self, name: str) -> None:
        # Act before logging: nothing a log write does may stand between a signal and the stop.
        self._signals += 1
        draining = self._drain is None
        if draining:
            self._drain = asyncio.create_task(self._drain_then_stop())
        elif name != "SIGHUP":
            self._stop.set()
        _log.info("signal.received", signal=name, count=self._signals)
        if draining:
            _log.info("server.draining")

    async def _drain_then_stop(self) -> None:
        await self.app.drain()
        self._stop.set()

    async def _shut_down(self) -> None:
        if self._drain is not None:
            self._drain.cancel()
        for entry in self._ws_servers:
            # Our connections close themselves once their outbox is flushed (nothing queued is lost).
            entry.server.close(close_connections=False)
        if self._dispatcher is not None:
            for conn in list(self._dispatcher.connections):
                conn.shutdown("server stopping")
        await self._wait_stopped()
        for path in self._sockets:
            path.unlink(missing_ok=True)
        await self.app.close()

    async def _wait_stopped(self) -> None:
        waits = [entry.server.wait_closed() for entry in self._ws_servers]
        pending = [*waits, *(asyncio.shield(t) for t in self._tasks)]
        if not pending:
            return
        try:
            async with asyncio.timeout(_STOP_GRACE_S):
                await asyncio.gather(*pending)
        except TimeoutError:
            _log.warning("server.stop_timeout")
            for task in self._tasks:
                task.cancel()


@dataclass(frozen=True)
class _Listener:
    server: Server
    label: str


async def _finish(serving: asyncio.Task[None], stream: WebSocketStream) -> None:
    """The connection was told to close: let its writer flush, but never wait on a peer that does not read."""
    from tether_server.transports.websocket import CLOSE_GRACE_S

    if stream.stalled:
        stream.abort()
    try:
        async with asyncio.timeout(CLOSE_GRACE_S * 2):
            await asyncio.shield(serving)
    except TimeoutError:
        stream.abort()
        await serving


def _banner(*lines: str) -> None:
    log.write_stderr("".join(f"{line}\n" for line in lines))


@dataclass(frozen=True)
class StdioFront:
    """What the stdio front did before the server was up: the bytes it read from stdin, and the
    handshake it answered (None: the first frame is among the bytes, unanswered)."""

    prefill: Prefill
    hello: Hello | None
    signals: list[str]
    """Signals received since the early answer, before the server's own handlers were installed."""


async def serve_app(app: App, options: ServeOptions, front: StdioFront | None = None) -> int:
    """Run `app` on the listeners of `options` until a drain completes or stdin reaches EOF."""
    return await Listeners(app, options, front).run()
