"""A throwaway PostgreSQL cluster for the tests, over Debian's `initdb` and `pg_ctl`.

One cluster per pytest process (each xdist worker starts its own: no lock to share, nothing to
clean up after a crashed worker but a temporary directory), listening on loopback only, on a
free port, with trust auth for its one superuser. Each test gets a database of its own.
As root, initdb refuses to run: the cluster then runs as the `postgres` user, in a directory
it owns. `pg_ctl stop` ends it at the end of the session.
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest

SUPERUSER = "tether"


def pg_bin_dir() -> Path | None:
    """Where initdb and pg_ctl are (PATH first, then Debian's versioned directories)."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).parent
    for candidate in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (candidate / "initdb").is_file() and (candidate / "pg_ctl").is_file():
            return candidate
    return None


def available() -> bool:
    if pg_bin_dir() is None:
        return False
    if os.geteuid() != 0:
        return True
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return False
    return True


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Cluster:
    root: Path
    port: int
    bin_dir: Path
    _names: Iterator[int] = field(default_factory=itertools.count)

    @property
    def data(self) -> Path:
        return self.root / "data"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh, empty database's URL."""
        name = f"t{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def _run(self, *argv: str) -> None:
        command = [str(self.bin_dir / argv[0]), *argv[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{argv[0]} failed ({done.returncode}): {done.stderr.strip() or done.stdout}")

    @classmethod
    def start(cls) -> Cluster:
        bin_dir = pg_bin_dir()
        assert bin_dir is not None, "PostgreSQL is missing: ./scripts/install-prereqs installs it"
        root = Path(tempfile.mkdtemp(prefix="tether-pg-"))
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(root, owner.pw_uid, owner.pw_gid)
        cluster = cls(root, _free_port(), bin_dir)
        # C.UTF-8: byte-order sorting and Unicode case folding (ILIKE) whatever the machine's locale.
        cluster._run("initdb", "-D", str(cluster.data), "-U", SUPERUSER, "-A", "trust", "-E", "UTF8",
                     "--locale=C.UTF-8", "--no-sync")  # fmt: skip
        options = (
            f"-c listen_addresses=127.0.0.1 -c port={cluster.port} -c unix_socket_directories='' "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        cluster._run("pg_ctl", "start", "-w", "-t", "60", "-D", str(cluster.data),
                     "-l", str(root / "log"), "-o", options)  # fmt: skip
        return cluster

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "stop", "-w", "-m", "immediate", "-D", str(self.data))
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Cluster]:
    cluster = Cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def postgres_url(postgres_cluster: Cluster) -> str:
    """A new empty database on the session's cluster."""
    return postgres_cluster.new_database()
