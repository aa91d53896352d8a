"""`tether app-server` itself: flags to options, the app built off the event loop, and the serve loop.

The stdio daemon answers the client's `initialize` while the daemon loads in a background thread
(`run_stdio`); with sockets or a pid file the app is prepared, then served (`run`).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether_server import __version__

if TYPE_CHECKING:
    from tether_server.app import App
    from tether_server.serve import StdioFront
    from tether_server.serve_options import ServeOptions


def serve_options(args: argparse.Namespace, home: Path) -> ServeOptions:
    from tether_server.serve_options import (
        ServeOptions,
        check_options,
        parse_fleet_listen,
        parse_listen,
        resolve_auth,
    )
    from tether_server.transports.ws_auth import WsAuthFlags

    flags = WsAuthFlags(
        mode=args.ws_auth,
        token_file=args.ws_token_file,
        token_sha256=args.ws_token_sha256,
        shared_secret_file=args.ws_shared_secret_file,
        issuer=args.ws_issuer,
        audience=args.ws_audience,
        max_clock_skew_s=args.ws_max_clock_skew_seconds,
    )
    listens = [parse_listen(url, home) for url in args.listen or ["stdio://"]]
    auth, no_auth = resolve_auth(flags, listens, home)
    secret = None
    if args.fleet_secret_file:
        # Loads websockets: only a fleet node pays for it before its first answer.
        from tether_server.transports.fleet import read_secret

        secret = read_secret(args.fleet_secret_file)
    options = ServeOptions(
        listens=listens,
        auth=auth,
        no_auth=no_auth,
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
        outbox_capacity=args.outbox_capacity,
        max_message_bytes=args.max_message_bytes,
        max_connections=args.max_connections,
        max_connections_per_peer=args.max_connections_per_peer,
        receive_queue=args.receive_queue,
        pre_auth_timeout_s=args.pre_auth_timeout,
        pid_file=args.pid_file,
        fleet_listen=parse_fleet_listen(args.fleet_listen, secret) if args.fleet_listen else None,
        fleet_secret=secret,
    )
    check_options(options)
    return options


def _prepare_app_server(args: argparse.Namespace, spawner: int) -> tuple[App, ServeOptions] | int:
    """Everything before the event loop: logging, home, flags, config, the app; or the exit status
    after a configuration error was reported on stderr."""
    from tether_server import heap, wire_models

    heap.pause_for_start()
    wire_models.skip_plugin_search()  # before the first model is built
    start_logging(args, spawner)
    from tether_server import log
    from tether_server.app import App
    from tether_server.config import load_config, prepare_home
    from tether_server.errors import ConfigError
    from tether_server.home_path import tether_home
    from tether_server.serve_options import private_paths
    from tether_server.store import urls

    home = tether_home()
    try:
        prepare_home(home)
        options = serve_options(args, home)
        loaded = load_config(home, args.overrides, strict=args.strict_config, profile=args.profile)
        store_url = urls.chosen_url(args.store, os.environ, loaded.config.store)
        store_factory = urls.store_factory(store_url)
        if options.fleet_secret is not None and not (store_url or "").lower().startswith("postgres"):
            raise ConfigError("--fleet-listen and --fleet-secret-file need a PostgreSQL store (--store)")
        node_id, lease_s = fleet_options(args)
    except ConfigError as exc:
        sys.stderr.write(f"tether: configuration error: {exc.message}\n")
        return 2
    logger = log.get("tether.cli")
    for warning in loaded.warnings:
        logger.warning("config.warning", message=warning)
    if args.metrics or loaded.config.tether.metrics:
        from tether_server import metrics

        metrics.enable()
        if not options.sockets:
            logger.warning("metrics.no_listener", hint="/metrics is served on ws:// and wss:// listeners")
    app = App(
        loaded,
        home,
        max_inflight=args.max_inflight_requests,
        max_inflight_per_connection=args.max_inflight_per_connection,
        hidden_paths=private_paths(home, options),
        store_factory=store_factory,
        node_id=node_id,
        lease_s=lease_s,
        fleet_secret=options.fleet_secret,
    )
    import tether_server.serve  # noqa: F401 - loaded here, off the event loop (and off the front's path)

    wire_models.build_shared()
    # The model provider (httpx2 and its transports, 50-180 ms of imports) is not loaded here: a
    # client waits for its first `thread/start` answer through all of this. It loads in the
    # background once a thread is opened (`warm_up.start_after_request`), while the client sends its turn.
    heap.settle_after_start()
    return app, options


def fleet_options(args: argparse.Namespace) -> tuple[str | None, float]:
    """`--node-id` / $TETHER_NODE_ID and `--lease-seconds` / $TETHER_LEASE_SECONDS; ConfigError if bad."""
    from tether_server.errors import ConfigError
    from tether_server.threads.ownership import DEFAULT_LEASE_S, LEASE_ENV, NODE_ENV

    node_id = (getattr(args, "node_id", None) or os.environ.get(NODE_ENV, "")).strip() or None
    if node_id is not None and (len(node_id) > 200 or not node_id.isprintable()):
        raise ConfigError(f"--node-id {node_id!r}: at most 200 printable characters")
    lease: float | str | None = getattr(args, "lease_seconds", None)
    if lease is None:
        lease = os.environ.get(LEASE_ENV, "").strip() or DEFAULT_LEASE_S
    try:
        lease_s = float(lease)
    except ValueError:
        raise ConfigError(f"{LEASE_ENV}={lease!r} is not a number of seconds") from None
    if not 0.5 <= lease_s <= 3600:
        raise ConfigError(f"lease of {lease_s:g} s: a lease lasts from 0.5 to 3600 seconds")
    return node_id, lease_s


def _serve(app: App, options: ServeOptions, front: StdioFront | None = None) -> int:
    from tether_server.errors import ConfigError
    from tether_server.serve import serve_app
    from tether_server.store.base import StoreError

    async def serve_then_exit() -> int:
        # A stdio daemon ends the moment the app has closed (database closed, answers written):
        # tearing the event loop down first (tasks, async generators, executor threads) would only
        # keep its client waiting for the exit.
        return exit_now(await serve_app(app, options, front))

    app.exits_at_close = front is not None

    try:
        return run_loop(serve_then_exit() if front is not None else serve_app(app, options, front))
    except ConfigError as exc:
        sys.stderr.write(f"tether: {exc.message}\n")
        return 2
    except StoreError as exc:  # corrupt, locked or newer database: say so, never reset it
        sys.stderr.write(f"tether: {exc}\n")
        return 2


def run(args: argparse.Namespace, spawner: int) -> int:
    prepared = _prepare_app_server(args, spawner)
    if isinstance(prepared, int):
        return prepared
    return _serve(*prepared)


def stdio_only(args: argparse.Namespace) -> bool:
    return (args.listen or ["stdio://"]) == ["stdio://"] and args.pid_file is None and sys.stdin is not None


def run_stdio(args: argparse.Namespace, spawner: int) -> int:
    """The stdio daemon: answer `initialize` while the daemon loads, then serve; exit at once.

    A background thread does everything `_prepare_app_server` does (imports, config, the app)
    while this thread waits for the client's first frame (after it, when it was already there).
    If that frame is a plain `initialize` it is answered here (rpc.handshake); otherwise it is
    handed to the server unanswered. A
    start-up error found first (the client had not spoken yet) is reported exactly as without
    the front; one found after the early answer is too (stderr, exit 2): the client then sees
    stdout close after its `initialize` result.
    """
    from tether_server.home_path import tether_home
    from tether_server.rpc.handshake import answer_first_frame
    from tether_server.transports.stdio_first import awaits_an_answer, read_while_loading

    outcome: list[tuple[App, ServeOptions] | int | BaseException] = []
    ready_r, ready_w = os.pipe()

    def prepare() -> None:
        try:
            outcome.append(_prepare_app_server(args, spawner))
        except BaseException as exc:  # noqa: BLE001 - re-raised in the main thread below
            outcome.append(exc)
        finally:
            os.write(ready_w, b"!")

    loader = threading.Thread(target=prepare, name="tether-start", daemon=True)

    def load() -> None:
        if loader.ident is None:
            loader.start()

    signals = _HeldSignals()
    # The loader starts as soon as the front would wait for the client; a first line already
    # there is answered before it starts (on a busy machine it would take the CPU from the answer).
    prefill, hello = answer_first_frame(
        sys.stdin.fileno(), sys.stdout.fileno(), ready_r, load, home=tether_home(), version=__version__
    )
    if hello is None:
        signals.release()
    load()
    if hello is not None:
        read_while_loading(prefill, sys.stdin.fileno(), ready_r)
        if prefill.eof and not any(awaits_an_answer(frame) for frame in prefill.frames):
            # The client answered was the only one and it has gone: nothing is left to answer, and
            # the loader only imports and reads config (the database opens after it), so it
            # is not waited for.
            return exit_now(0)
    loader.join()
    os.close(ready_r)
    os.close(ready_w)
    prepared = outcome[0]
    if isinstance(prepared, BaseException):
        raise prepared
    if isinstance(prepared, int):
        return exit_now(prepared)
    from tether_server.serve import StdioFront

    return exit_now(_serve(*prepared, StdioFront(prefill, hello, signals.names)))


class _HeldSignals:
    """SIGTERM/SIGINT/SIGHUP noted, not acted on, from just before an early `initialize` answer
    until the server's own handlers replay them: a client that was answered may ask for a drain
    at once. Without an early answer they are released (a signal already held is re-sent), so
    a server that has not spoken yet stops as it always did."""

    _SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)

    def __init__(self) -> None:
        self.names: list[str] = []
        self._previous = {sig: signal.signal(sig, self._note) for sig in self._SIGNALS}

    def _note(self, signum: int, _frame: object) -> None:
        self.names.append(signal.Signals(signum).name)

    def release(self) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        for name in self.names:
            os.kill(os.getpid(), signal.Signals[name])


def exit_now(status: int) -> int:
    """End a stdio daemon without interpreter teardown: by now the database is closed and every
    answer written (log lines go straight to fd 2, unbuffered), so nothing is left to save."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)


def start_logging(args: argparse.Namespace, spawner: int) -> None:
    from tether_server import log
    from tether_server.transports.parent import remember_spawner

    remember_spawner(spawner)
    # Commands other than the daemon print their own results; only warnings go to the log.
    log.configure(getattr(args, "log_level", None) or (None if args.command == "app-server" else "warning"))


def run_loop(main: Coroutine[Any, Any, int]) -> int:
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a dependency on unix
        import asyncio

        return int(asyncio.run(main))
    return int(uvloop.run(main))
