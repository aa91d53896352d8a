"""Which store a daemon uses: `--store URL`, else `$TETHER_STORE`, else config key `store`.

`sqlite:///path` (absolute path) or `postgresql://user:pass@host:port/db` (also `postgres://`);
none of them: the SQLite file in the home, as always. Anything else is a configuration error
that names the value without its password.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from urllib.parse import urlsplit

from tether_server.errors import ConfigError
from tether_server.store.base import ThreadStore

ENV = "TETHER_STORE"
DB_FILE = "tether.sqlite"
_POSTGRES_SCHEMES = ("postgresql", "postgres")


def chosen_url(flag: str | None, environ: Mapping[str, str], configured: str | None) -> str | None:
    """The store URL in force: the flag, else the environment, else the config (None: default)."""
    for value in (flag, environ.get(ENV), configured):
        if value is not None and value.strip():
            return value.strip()
    return None


def _shown(url: str) -> str:
    """`url` with any password replaced, for error messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


def store_factory(url: str | None) -> Callable[[Path], ThreadStore]:
    """Home directory → an unopened store for `url`; ConfigError when the URL names no store."""
    if url is None:
        return lambda home: _sqlite(home / DB_FILE)
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme == "sqlite":
        path = url[len("sqlite://") :] if url.lower().startswith("sqlite://") else ""
        if not path.startswith("/") or path.startswith("//") or path.endswith("/"):
            raise ConfigError(f"store: {url!r} is not a SQLite URL; write sqlite:///absolute/path/to/file")
        return lambda _home: _sqlite(Path(path))
    if scheme in _POSTGRES_SCHEMES:
        return _postgres(url)
    raise ConfigError(
        f"store: {_shown(url)!r} is not a store URL; use sqlite:///path or postgresql://user@host:port/db"
    )


def _sqlite(path: Path) -> ThreadStore:
    from tether_server.store.sqlite import SqliteThreadStore

    return SqliteThreadStore(path)


def _postgres(url: str) -> Callable[[Path], ThreadStore]:
    import psycopg

    from tether_server.store.postgres import PostgresThreadStore

    try:
        info = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError as exc:
        raise ConfigError(f"store: {_shown(url)!r} is not a valid PostgreSQL URL ({exc})") from None
    if not info.get("dbname"):
        raise ConfigError(f"store: {_shown(url)!r} names no database; write postgresql://user@host:port/db")
    return lambda _home: PostgresThreadStore(url)
