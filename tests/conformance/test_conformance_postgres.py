"""A representative part of the conformance suite against Tether on PostgreSQL.

Every case's daemon runs on a database of its own (`tests/support/pg_launch.py`, named after the
case's home, so a restart finds its threads): the cases that name, archive, page, fork and resume
after a restart, over stdio, and two clients of one daemon over a socket.
The whole suite runs on SQLite in test_conformance_tether.py; the store port is the same.
"""

from __future__ import annotations

import sys
from pathlib import Path

from conformance.server import ServerTemplate

from tests.conformance.test_conformance_tether import run_suite, tether_template
from tests.support import pg_launch
from tests.support.postgres import Cluster

STORE_CASES = [
    "thread.lifecycle",
    "thread.resume-after-restart",
    "thread.pagination",
    "thread.fork-inherits",
]


def postgres_template(transport: str, admin_url: str) -> ServerTemplate:
    plain = tether_template(transport)
    daemon = f"{sys.executable} -m tether_server"
    assert plain.command.startswith(daemon)
    launcher = f"{sys.executable} {pg_launch.__file__} {admin_url} {{home}}"
    return ServerTemplate(launcher + plain.command[len(daemon) :], plain.env, transport)


async def test_store_cases_over_stdio_on_postgresql(tmp_path: Path, postgres_cluster: Cluster) -> None:
    template = postgres_template("stdio", postgres_cluster.url())
    assert await run_suite(tmp_path, "stdio", STORE_CASES, template) == []


async def test_two_clients_of_one_daemon_over_a_socket_on_postgresql(
    tmp_path: Path, postgres_cluster: Cluster
) -> None:
    template = postgres_template("unix", postgres_cluster.url())
    assert await run_suite(tmp_path, "unix", ["multiclient.two-clients"], template) == []
