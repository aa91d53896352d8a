"""`tether` command line.

Only the standard library loads before the arguments are parsed: `tether app-server` on stdio
answers the client's `initialize` while the daemon loads in a background thread (see
`commands.app_server.run_stdio`), and a command loads only what it runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from tether_server import __version__
from tether_server.commands import app_server, doctor, fleet, login, store
from tether_server.commands.flags import add_config_overrides

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
        "--store",
        default=None,
        metavar="URL",
        help="sqlite:///PATH (default: $TETHER_HOME/tether.sqlite) or postgresql://USER@HOST:PORT/DB; "
        "also $TETHER_STORE and config key `store`",
    )
    app_server.add_argument(
        "--node-id",
        default=None,
        metavar="NAME",
        help="this daemon's id in a fleet on PostgreSQL (default: host name and pid; also $TETHER_NODE_ID)",
    )
    app_server.add_argument(
        "--lease-seconds",
        type=float,
        default=None,
        metavar="S",
        help="how long a fleet node's thread lease lasts unrenewed (default 10; also $TETHER_LEASE_SECONDS)",
    )
    app_server.add_argument(
        "--fleet-listen",
        default=None,
        metavar="URL",
        help="ws://IP:PORT where the other fleet nodes relay requests for this node's threads "
        "(advertised in the database; needs --fleet-secret-file)",
    )
    app_server.add_argument(
        "--fleet-secret-file",
        type=Path,
        default=None,
        metavar="FILE",
        help="the fleet's shared secret (at least 32 bytes), proved both ways on every fleet connection",
    )
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
    store.add_parser(sub)
    fleet.add_parser(sub)
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
        help="TCP connections at once from one address (503 beyond), and as many more waiting to upgrade",
    )
    add(
        "--pre-auth-timeout",
        type=float,
        default=10.0,
        metavar="S",
        help="seconds a socket may take to complete its upgrade (auth included) before it is closed",
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


def _run_tool(args: argparse.Namespace, argv: list[str]) -> int:
    if args.tool in ("generate-json-schema", "generate-ts"):
        return _generate(args.tool, args.out)
    from tether_server import daemon
    from tether_server.home_path import tether_home
    from tether_server.transports.unix import default_socket_path

    home = tether_home()
    if args.tool == "proxy":
        return app_server.run_loop(daemon.proxy(args.sock or default_socket_path(home)))
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
        if app_server.stdio_only(args):
            if os.environ.get(EARLY_INITIALIZE_ENV, "").strip() == "0":
                return app_server.exit_now(app_server.run(args, spawner))
            return app_server.run_stdio(args, spawner)
        return app_server.run(args, spawner)
    app_server.start_logging(args, spawner)
    if args.command == "app-server":
        return _run_tool(args, argv)
    if args.command in ("login", "logout"):
        return login.run(args)
    if args.command == "doctor":
        return doctor.run(args)
    if args.command == "store":
        return store.run(args)
    if args.command == "fleet":
        return fleet.run(args)
    return 2


if __name__ == "__main__":
    sys.exit(main())
