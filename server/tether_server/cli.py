"""`tether` command line.

Only the standard library loads before the arguments are parsed: `tether app-server` on stdio
answers the client's `initialize` while the daemon loads in a background thread (see
`_run_stdio_app_server`), and a command loads only what it runs.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether_server import __version__
from tether_server.commands import doctor, login
from tether_server.commands.flags import add_config_overrides

if TYPE_CHECKING:
    from tether_server.app import App
    from tether_server.serve import StdioFront
    from tether_server.serve_options import ServeOptions

EARLY_INITIALIZE_ENV = "TETHER_EARLY_INITIALIZE"
"""`0` turns the stdio front off: `initialize` is then answered by the full server once it is up."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tether", description="Tether coding-agent harness daemon")
    parser.add_argument("--version", action="version", version=f"tether {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    app_server = sub.add_parser("app-server", help="run the app-server (JSON-RPC, Codex v2 compatible)")
    app_server.add_argument(
        "--listen",
        action="append",
        default=None,
        metavar="URL",
        help="stdio:// (default), unix://, unix://PATH, ws://IP:PORT, wss://IP:PORT; repeatable",
    )
    add_config_overrides(app_server, profile=True)
    app_server.add_argument("--strict-config", action="store_true", help="unknown config keys are errors")
    app_server.add_argument(
        "--log-level",
        default=None,
        choices=["debug", "info", "warning", "error", "critical"],
        help="log level (default info; TETHER_LOG=info,tether_server.store=debug filters by module)",
    )
    app_server.add_argument(
        "--max-inflight-requests",
        type=int,
        default=1024,
        metavar="N",
        help="requests admitted at once; beyond that a request is answered -32001 (retry later)",
    )
    app_server.add_argument(
        "--max-inflight-per-connection",
        type=int,
        default=128,
        metavar="N",
        help="requests one connection may have running at once (-32001 beyond): "
        "one client cannot starve the others",
    )
    app_server.add_argument(
        "--metrics",
        action="store_true",
        help="serve Prometheus metrics at /metrics on the ws:// listeners (same bearer auth); "
        "config: [tether] metrics = true",
    )
    _add_socket_flags(app_server)
    tools = app_server.add_subparsers(dest="tool")
    schema = tools.add_parser("generate-json-schema", help="write the protocol's JSON Schema")
    schema.add_argument("--out", required=True, type=Path)
    ts = tools.add_parser("generate-ts", help="write TypeScript declarations of the protocol")
    ts.add_argument("--out", required=True, type=Path)
    proxy = tools.add_parser("proxy", help="relay JSONL on stdio to a running daemon's control socket")
    proxy.add_argument("--sock", type=Path, default=None, help="socket path (default: the control socket)")
    daemon = tools.add_parser("daemon", help="manage a background app-server on the control socket")
    daemon.add_argument("action", choices=["start", "stop", "status"])
    sub.add_parser("exec", help="run one turn non-interactively (see `tether exec --help`)", add_help=False)
    sub.add_parser("tui", help="terminal UI, local or on a daemon (see `tether tui --help`)", add_help=False)
    sub.add_parser(
        "mcp-server",
        help="serve Tether as an MCP server on stdio (tools tether, tether-reply)",
        add_help=False,
    )
    login.add_parsers(sub)
    doctor.add_parser(sub)
    return parser


def _add_socket_flags(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add(
        "--ws-auth",
        choices=["capability-token", "signed-bearer-token", "none"],
        default=None,
        help="TCP listener auth; default: a capability token generated in $TETHER_HOME/ws-token "
        "(`none`: no auth, loopback only)",
    )
    add("--ws-token-file", type=Path, default=None, metavar="PATH")
    add("--ws-token-sha256", default=None, metavar="HEX")
    add("--ws-shared-secret-file", type=Path, default=None, metavar="PATH")
    add("--ws-issuer", default=None)
    add("--ws-audience", default=None)
    add("--ws-max-clock-skew-seconds", type=int, default=None, metavar="N")
    add("--tls-cert", type=Path, default=None, metavar="PATH", help="certificate chain for wss://")
    add("--tls-key", type=Path, default=None, metavar="PATH", help="private key for wss://")
    add(
        "--outbox-capacity",
        type=int,
        default=16_384,
        metavar="N",
        help="messages queued for one client; a client that lets it fill is disconnected",
    )
    add("--max-message-bytes", type=int, default=16 * 1024 * 1024, metavar="N", help=argparse.SUPPRESS)
    add("--max-connections", type=int, default=512, metavar="N", help="socket connections (503 beyond)")
    add(
        "--max-connections-per-peer",
        type=int,
        default=128,
        metavar="N",
        help="TCP connections at once from one address (503 beyond)",
    )
    add("--receive-queue", type=int, default=4, metavar="N", help="frames buffered per socket connection")
    add("--pid-file", type=Path, default=None, help=argparse.SUPPRESS)


def _generate(tool: str, out: Path) -> int:
    if tool == "generate-json-schema":
        from tether_protocol.schema_export import export_json_schema

        paths = export_json_schema(out)
    else:
        from tether_protocol.ts_export import export_typescript

        paths = export_typescript(out)
    sys.stderr.write(f"wrote {len(paths)} files to {out}\n")
    return 0


def _serve_options(args: argparse.Namespace, home: Path) -> ServeOptions:
    from tether_server.serve_options import ServeOptions, check_options, parse_listen, resolve_auth
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
        pid_file=args.pid_file,
    )
    check_options(options)
    return options


def _prepare_app_server(args: argparse.Namespace, spawner: int) -> tuple[App, ServeOptions] | int:
    """Everything before the event loop: logging, home, flags, config, the app; or the exit status
    after a configuration error was reported on stderr."""
    from tether_server import heap, warm_up, wire_models

    wire_models.skip_plugin_search()  # before the first model is built
    _start_logging(args, spawner)
    from tether_server import log
    from tether_server.app import App
    from tether_server.config import load_config, prepare_home
    from tether_server.errors import ConfigError
    from tether_server.home_path import tether_home
    from tether_server.serve_options import private_paths

    home = tether_home()
    try:
        prepare_home(home)
        options = _serve_options(args, home)
        loaded = load_config(home, args.overrides, strict=args.strict_config, profile=args.profile)
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
    )
    import tether_server.serve  # noqa: F401 - loaded here, off the event loop (and off the front's path)

    wire_models.build_shared()
    # A client that starts a daemon runs turns on it: the model provider (httpx and its
    # transports, ~75 ms of imports) loads now, before the first request is served, rather than
    # beside the first turn (where it competes with that turn for the interpreter).
    warm_up.load_now()
    heap.settle_after_start()
    return app, options


def _serve(app: App, options: ServeOptions, front: StdioFront | None = None) -> int:
    from tether_server.errors import ConfigError
    from tether_server.serve import serve_app
    from tether_server.store.base import StoreError

    async def serve_then_exit() -> int:
        # A stdio daemon ends the moment the app has closed (database closed, answers written):
        # tearing the event loop down first (tasks, async generators, executor threads) would only
        # keep its client waiting for the exit.
        return _exit_now(await serve_app(app, options, front))

    try:
        return _run(serve_then_exit() if front is not None else serve_app(app, options, front))
    except ConfigError as exc:
        sys.stderr.write(f"tether: {exc.message}\n")
        return 2
    except StoreError as exc:  # corrupt, locked or newer database: say so, never reset it
        sys.stderr.write(f"tether: {exc}\n")
        return 2


def _run_app_server(args: argparse.Namespace, spawner: int) -> int:
    prepared = _prepare_app_server(args, spawner)
    if isinstance(prepared, int):
        return prepared
    return _serve(*prepared)


def _stdio_only(args: argparse.Namespace) -> bool:
    return (args.listen or ["stdio://"]) == ["stdio://"] and args.pid_file is None and sys.stdin is not None


def _run_stdio_app_server(args: argparse.Namespace, spawner: int) -> int:
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
    loader.join()
    os.close(ready_r)
    os.close(ready_w)
    prepared = outcome[0]
    if isinstance(prepared, BaseException):
        raise prepared
    if isinstance(prepared, int):
        return _exit_now(prepared)
    from tether_server.serve import StdioFront

    return _exit_now(_serve(*prepared, StdioFront(prefill, hello, signals.names)))


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


def _exit_now(status: int) -> int:
    """End a stdio daemon without interpreter teardown: by now the database is closed and every
    answer written (log lines go straight to fd 2, unbuffered), so nothing is left to save."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)


def _start_logging(args: argparse.Namespace, spawner: int) -> None:
    from tether_server import log
    from tether_server.transports.parent import remember_spawner

    remember_spawner(spawner)
    # Commands other than the daemon print their own results; only warnings go to the log.
    log.configure(getattr(args, "log_level", None) or (None if args.command == "app-server" else "warning"))


def _run(main: Coroutine[Any, Any, int]) -> int:
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a dependency on unix
        import asyncio

        return int(asyncio.run(main))
    return int(uvloop.run(main))


def _run_tool(args: argparse.Namespace, argv: list[str]) -> int:
    if args.tool in ("generate-json-schema", "generate-ts"):
        return _generate(args.tool, args.out)
    from tether_server import daemon
    from tether_server.home_path import tether_home
    from tether_server.transports.unix import default_socket_path

    home = tether_home()
    if args.tool == "proxy":
        return _run(daemon.proxy(args.sock or default_socket_path(home)))
    # The daemon gets the app-server flags given before `daemon` (config overrides, listeners, auth).
    start = argv.index("app-server") + 1
    return daemon.manage(args.action, home, argv[start : argv.index("daemon", start)])


def main(argv: Sequence[str] | None = None) -> int:
    spawner = os.getppid()  # now: the client may exit before the server is up
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["exec"]:
        from tether_client.exec_cli import main as exec_main

        return exec_main(argv[1:])
    if argv[:1] == ["mcp-server"]:
        from tether_client.mcp_server import main as mcp_main

        return mcp_main(argv[1:])
    if argv[:1] == ["tui"]:
        from tether_tui.cli import main as tui_main

        return tui_main(argv[1:])
    args = _parser().parse_args(argv)
    if args.command == "app-server" and not args.tool:
        if _stdio_only(args):
            if os.environ.get(EARLY_INITIALIZE_ENV, "").strip() == "0":
                return _exit_now(_run_app_server(args, spawner))
            return _run_stdio_app_server(args, spawner)
        return _run_app_server(args, spawner)
    _start_logging(args, spawner)
    if args.command == "app-server":
        return _run_tool(args, argv)
    if args.command in ("login", "logout"):
        return login.run(args)
    if args.command == "doctor":
        return doctor.run(args)
    return 2


if __name__ == "__main__":
    sys.exit(main())
