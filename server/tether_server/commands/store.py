"""`tether store migrate --from URL --to URL`: copy every thread and everything else a store holds.

URLs as `tether app-server --store` takes them. The target is empty (a new SQLite file, an empty
PostgreSQL database) or what an interrupted run left: running again continues the copy. Exit 0
with the verified counts on stdout; 2 for a bad URL or an unusable store; 1 when the copy fails,
does not match the source, or the target holds threads that are not this source's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `store` on the top-level parser."""
    store = sub.add_parser("store", help="manage thread stores (see `tether store migrate --help`)")
    tools = store.add_subparsers(dest="store_command", required=True)
    migrate = tools.add_parser(
        "migrate", help="copy every thread from one store into another, empty one (run again to resume)"
    )
    migrate.add_argument(
        "--from", dest="source", required=True, metavar="URL", help="sqlite:///PATH or postgresql://…"
    )
    migrate.add_argument(
        "--to", dest="target", required=True, metavar="URL", help="sqlite:///PATH or postgresql://…"
    )


def run(args: argparse.Namespace) -> int:
    import asyncio

    from tether_server.errors import ConfigError
    from tether_server.store import urls
    from tether_server.store.base import StoreError
    from tether_server.store.migrate import MigratableStore, migrate

    try:
        source_factory, target_factory = urls.store_factory(args.source), urls.store_factory(args.target)
    except ConfigError as exc:
        sys.stderr.write(f"tether: configuration error: {exc.message}\n")
        return 2
    if args.source == args.target:
        sys.stderr.write("tether: --from and --to name the same store\n")
        return 2
    if args.source.startswith("sqlite://") and not Path(args.source[len("sqlite://") :]).is_file():
        sys.stderr.write(f"tether: --from {args.source}: no such database file\n")
        return 2
    # A sqlite:/// URL names its file; there is no home for a default here.
    source: MigratableStore = source_factory(Path())  # type: ignore[assignment]
    target: MigratableStore = target_factory(Path())  # type: ignore[assignment]

    async def copy() -> int:
        try:
            await source.open()
            await target.open()
        except StoreError as exc:
            sys.stderr.write(f"tether: {exc}\n")
            return 2
        try:
            counts = await migrate(source, target)
        except StoreError as exc:
            sys.stderr.write(f"tether: store migrate failed: {exc}\n")
            return 1
        finally:
            await target.close()
            await source.close()
        sys.stdout.write(f"copied: {counts.render()}\n")
        return 0

    return asyncio.run(copy())
