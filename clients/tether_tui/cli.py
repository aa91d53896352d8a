"""`tether tui`: open the terminal UI on a local app-server child or a running daemon.

Without `--connect` it spawns `tether app-server` over stdio (config overrides go to that child).
With `--connect ws://HOST:PORT` or `unix://[PATH]` it attaches to a running daemon, possibly on
another machine; config overrides then travel with `thread/start`/`thread/resume`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tether_client import Client, TetherClientError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """Bad arguments or unreadable files."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tether tui", description="Tether's terminal UI.")
    add = parser.add_argument
    add("--connect", metavar="URL", default=None, help="ws://HOST:PORT, wss://…, unix:// or unix://PATH")
    add(
        "--token-file",
        type=Path,
        default=None,
        metavar="FILE",
        help="bearer token for --connect (default on loopback: the daemon's $TETHER_HOME/ws-token)",
    )
    add("-c", "--config", dest="overrides", action="append", default=[], metavar="key=value")
    add("-C", "--cd", type=Path, default=None, metavar="DIR", help="working directory of new threads")
    return parser


def parse_override(text: str) -> tuple[str, Any]:
    """`key=value` with the value read as TOML (a bare word stays a string), like `app-server -c`."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise UsageError(f"-c {text!r}: expected key=value")
    try:
        value: Any = tomllib.loads(f"v = {raw.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw.strip()
    return key.strip(), value


def read_token(path: Path | None) -> str | None:
    """The token in `path` (surrounding whitespace dropped), or None without a file."""
    if path is None:
        return None
    try:
        token = path.read_text().strip()
    except OSError as exc:
        raise UsageError(f"--token-file {path}: {exc.strerror}") from exc
    if not token:
        raise UsageError(f"--token-file {path} is empty")
    return token


def app_server_command(overrides: Sequence[str]) -> list[str]:
    """The local app-server child's argv, carrying the `-c` overrides."""
    command = [sys.executable, "-m", "tether_server", "app-server"]
    for override in overrides:
        command += ["-c", override]
    return command


async def open_client(args: argparse.Namespace) -> Client:
    """Attach to `--connect`, or spawn a local app-server."""
    if args.connect:
        return await Client.connect(args.connect, token=read_token(args.token_file))
    cwd = args.cd or Path.cwd()
    return await Client.spawn(app_server_command(args.overrides), cwd=cwd)


async def run(args: argparse.Namespace) -> int:
    """Connect, run the app until the user quits, disconnect."""
    from tether_tui.app import TetherApp

    client = await open_client(args)
    try:
        config = dict(parse_override(o) for o in args.overrides) if args.connect else {}
        cwd = str(args.cd.resolve()) if args.cd else (None if args.connect else os.getcwd())
        await TetherApp(client, cwd=cwd, config=config).run_async()
    finally:
        await client.close()
    return EXIT_OK


def _check(args: argparse.Namespace) -> None:
    if args.cd is not None and not args.cd.is_dir():
        raise UsageError(f"--cd {args.cd}: not a directory")
    if args.token_file is not None and not args.connect:
        raise UsageError("--token-file needs --connect")
    for override in args.overrides:
        parse_override(override)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `tether tui` (dispatched from `tether`'s CLI)."""
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        _check(args)
        import textual  # noqa: F401 - an optional dependency: fail with a hint, not a traceback
    except UsageError as exc:
        sys.stderr.write(f"tether tui: {exc}\n")
        return EXIT_USAGE
    except ImportError:
        sys.stderr.write("tether tui: the TUI needs Textual: pip install 'tether[tui]'\n")
        return EXIT_FAILED
    try:
        return asyncio.run(run(args))
    except (TetherClientError, OSError, UsageError) as exc:
        sys.stderr.write(f"tether tui: {exc}\n")
        return EXIT_FAILED
