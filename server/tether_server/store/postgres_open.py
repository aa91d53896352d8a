"""Opening the PostgreSQL store: the connection pool, migrations, and clear errors when unusable."""

from __future__ import annotations

import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from tether_server import log
from tether_server.store.base import StoreError
from tether_server.store.pg_migrations import MIGRATIONS, SCHEMA_VERSION

_log = log.get(__name__)
# Two opens at once (two daemons starting on one database) migrate once: the second waits here.
_MIGRATION_LOCK = 0x7E7E_0001
_VERSION_TABLE = "CREATE TABLE IF NOT EXISTS tether_schema (version INTEGER NOT NULL)"


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    try:
        info = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "postgresql://…"
    host = info.get("host") or "localhost"
    port = f":{info['port']}" if info.get("port") else ""
    user = f"{info['user']}@" if info.get("user") else ""
    return f"postgresql://{user}{host}{port}/{info.get('dbname') or ''}"


def describe_error(url: str, exc: psycopg.Error) -> str:
    """A message that names the database (never its password) and says what is wrong."""
    return f"database {redact(url)} cannot be used: {_first_line(exc)}"


async def open_pool(url: str, size: int, timeout_s: float) -> AsyncConnectionPool:
    """A pool of autocommit connections to `url`, the schema migrated.

    Raises:
        StoreError: the server cannot be reached, refuses the login, or has a newer schema.
    """
    # One connection first: a refused login or an unreachable server fails at once with the
    # server's reason (a pool would retry until its timeout and report only that).
    try:
        conn = await psycopg.AsyncConnection.connect(
            url, autocommit=True, connect_timeout=max(1, int(timeout_s))
        )
    except psycopg.Error as exc:
        raise StoreError(f"database {redact(url)} cannot be opened: {_first_line(exc)}") from exc
    try:
        async with conn:
            await _migrate(conn, url)
    except psycopg.Error as exc:
        raise StoreError(describe_error(url, exc)) from exc
    pool = AsyncConnectionPool(
        url, min_size=1, max_size=size, open=False, timeout=timeout_s, kwargs={"autocommit": True}
    )
    try:
        await pool.open(wait=True, timeout=timeout_s)
    except (PoolTimeout, psycopg.Error) as exc:  # the server went away since
        await pool.close()
        raise StoreError(f"database {redact(url)} cannot be opened: {_first_line(exc)}") from exc
    return pool


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


async def _migrate(conn: psycopg.AsyncConnection[tuple[object, ...]], url: str) -> None:
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        await conn.execute(_VERSION_TABLE)
        cur = await conn.execute("SELECT version FROM tether_schema")
        row = await cur.fetchone()
        version = int(str(row[0])) if row is not None else 0
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"database {redact(url)} was created by a newer Tether (schema v{version}); "
                f"this version knows up to v{SCHEMA_VERSION}"
            )
        if version == SCHEMA_VERSION:
            return
        for number in range(version + 1, SCHEMA_VERSION + 1):
            for statement in MIGRATIONS[number - 1]:
                await conn.execute(statement.encode())  # bytes: no placeholder parsing of `$$ … %`
        await conn.execute("DELETE FROM tether_schema")
        await conn.execute("INSERT INTO tether_schema (version) VALUES (%s)", (SCHEMA_VERSION,))
    _log.info("store.migrated", database=redact(url), from_version=version, to_version=SCHEMA_VERSION)
