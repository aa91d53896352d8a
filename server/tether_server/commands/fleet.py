"""`tether fleet status --store URL`: one line per node of a fleet on PostgreSQL.

Each node: its id, the address it advertises (none until nodes forward to each other), live or
dead (its heartbeat, renewed with its leases, has not expired), and how many threads it owns.
`--json` prints a JSON array for machines. Exit 2 for a URL that names no PostgreSQL store or a
database that cannot be used.
"""

from __future__ import annotations

import argparse
import json
import os
import sys


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `fleet` on the top-level parser."""
    fleet = sub.add_parser("fleet", help="the daemons sharing a PostgreSQL store (`tether fleet status`)")
    tools = fleet.add_subparsers(dest="fleet_command", required=True)
    status = tools.add_parser("status", help="one line per node: id, address, live or dead, threads owned")
    status.add_argument("--store", default=None, metavar="URL", help="postgresql://… (default $TETHER_STORE)")
    status.add_argument("--json", action="store_true", help="a JSON array, one object per node")


def run(args: argparse.Namespace) -> int:
    import asyncio

    from tether_server.errors import ConfigError
    from tether_server.store import urls

    url = urls.chosen_url(args.store, os.environ, None)
    if url is None or url.split(":", 1)[0].lower() not in ("postgresql", "postgres"):
        sys.stderr.write(
            "tether: fleet status needs a PostgreSQL store: --store postgresql://… or $TETHER_STORE\n"
        )
        return 2
    try:
        urls.store_factory(url)
    except ConfigError as exc:
        sys.stderr.write(f"tether: configuration error: {exc.message}\n")
        return 2
    return asyncio.run(_status(url, bool(args.json)))


async def _status(url: str, as_json: bool) -> int:
    import psycopg

    from tether_server.store.postgres_leases import fleet_rows
    from tether_server.store.postgres_open import describe_error

    try:
        async with await psycopg.AsyncConnection.connect(url, autocommit=True, connect_timeout=10) as conn:
            nodes = [row async for row in fleet_rows(conn)]
    except psycopg.Error as exc:
        sys.stderr.write(f"tether: {describe_error(url, exc)}\n")
        return 2
    if as_json:
        out = [
            {"nodeId": n, "address": a, "live": live, "heartbeatAt": beat.isoformat(), "threadsOwned": owned}
            for n, a, live, beat, owned in nodes
        ]
        sys.stdout.write(json.dumps(out) + "\n")
        return 0
    for n, a, live, beat, owned in nodes:
        state = "live" if live else "dead"
        sys.stdout.write(f"{n}\t{a or '-'}\t{state}\tthreads {owned}\tlast heartbeat {beat.isoformat()}\n")
    return 0
