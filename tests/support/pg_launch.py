"""Start `tether app-server` on a PostgreSQL database of its own, named after its home.

For suites that start daemons from a command template and know only a home (the conformance
suite): `python pg_launch.py ADMIN_URL HOME ARGS…` creates the home's database on the cluster
behind ADMIN_URL unless it exists, then becomes `tether ARGS… --store <that database>` with the
home's own node id, so a daemon restarted on the same home finds its threads and its leases.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys

import psycopg
from psycopg import errors


def database_url(admin_url: str, home: str) -> tuple[str, str]:
    name = "h" + hashlib.sha256(home.encode()).hexdigest()[:24]
    return name, admin_url.rsplit("/", 1)[0] + "/" + name


def main(argv: list[str]) -> None:
    admin_url, home, *args = argv
    name, url = database_url(admin_url, home)
    with psycopg.connect(admin_url, autocommit=True) as conn, contextlib.suppress(errors.DuplicateDatabase):
        conn.execute(f'CREATE DATABASE "{name}"')  # DuplicateDatabase: a restart on the same home
    command = [sys.executable, "-m", "tether_server", *args, "--store", url, "--node-id", f"node-{name}"]
    os.execv(sys.executable, command)


if __name__ == "__main__":
    main(sys.argv[1:])
