"""`tether` command line."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from tether_server import __version__, log
from tether_server.errors import ConfigError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tether", description="Tether coding-agent harness daemon")
    parser.add_argument("--version", action="version", version=f"tether {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    app_server = sub.add_parser("app-server", help="run the app-server (JSON-RPC, Codex v2 compatible)")
    app_server.add_argument("--listen", default="stdio://", help="stdio:// (default)")
    app_server.add_argument(
        "-c",
        "--config",
        dest="overrides",
        action="append",
        default=[],
        metavar="key=value",
        help="override a config.toml key (value parsed as TOML)",
    )
    app_server.add_argument("-p", "--profile", default=None, help="config profile to apply")
    app_server.add_argument("--strict-config", action="store_true", help="unknown config keys are errors")
    app_server.add_argument("--log-level", default="info")
    app_server.add_argument(
        "--max-inflight-requests",
        type=int,
        default=1024,
        metavar="N",
        help="requests admitted at once; beyond that a request is answered -32001 (retry later)",
    )
    tools = app_server.add_subparsers(dest="tool")
    schema = tools.add_parser("generate-json-schema", help="write the protocol's JSON Schema")
    schema.add_argument("--out", required=True, type=Path)
    ts = tools.add_parser("generate-ts", help="write TypeScript declarations of the protocol")
    ts.add_argument("--out", required=True, type=Path)
    return parser


def _generate(tool: str, out: Path) -> int:
    if tool == "generate-json-schema":
        from tether_protocol.schema_export import export_json_schema

        paths = export_json_schema(out)
    else:
        from tether_protocol.ts_export import export_typescript

        paths = export_typescript(out)
    sys.stderr.write(f"wrote {len(paths)} files to {out}\n")
    return 0


def _run_app_server(args: argparse.Namespace) -> int:
    from tether_server.app import App, serve_stdio
    from tether_server.config import load_config, tether_home

    if args.listen != "stdio://":
        sys.stderr.write(f"tether: unsupported --listen {args.listen!r}; this build serves stdio:// only\n")
        return 2
    home = tether_home()
    try:
        loaded = load_config(home, args.overrides, strict=args.strict_config, profile=args.profile)
    except ConfigError as exc:
        sys.stderr.write(f"tether: configuration error: {exc.message}\n")
        return 2
    logger = log.get("tether.cli")
    for warning in loaded.warnings:
        logger.warning("config.warning", message=warning)
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a dependency on unix
        return int(asyncio.run(serve_stdio(App(loaded, home, max_inflight=args.max_inflight_requests))))
    return int(uvloop.run(serve_stdio(App(loaded, home, max_inflight=args.max_inflight_requests))))


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    log.configure(getattr(args, "log_level", "info"))
    if args.command == "app-server":
        if args.tool:
            return _generate(args.tool, args.out)
        return _run_app_server(args)
    return 2


if __name__ == "__main__":
    sys.exit(main())
