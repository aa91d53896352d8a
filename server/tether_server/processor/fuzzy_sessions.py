"""Each connection's file searches: superseded searches by cancellation token, and sessions.

One `FuzzySessions` lives on the server state; what a connection started ends with it
(`connection_closed`, from the one disconnect path).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tether_server.errors import InvalidRequest
from tether_server.rpc.connection import Connection

if TYPE_CHECKING:  # the file lister (and pathspec) loads with the first file search (issue 31)
    from tether_server.tools.file_search.matcher import Corpus

MAX_SESSIONS_PER_CONNECTION = 8


@dataclass
class Search:
    """One search in flight; a newer one with the same token or in the same session supersedes it."""

    superseded: bool = False

    def cancelled(self) -> bool:
        return self.superseded


@dataclass
class Session:
    roots: list[str]
    real_roots: list[str]
    listings: list[list[Corpus]] | None = None
    latest: Search = field(default_factory=Search)
    tasks: set[asyncio.Task[None]] = field(default_factory=set)

    def stop(self) -> None:
        self.latest.superseded = True
        for task in self.tasks:
            task.cancel()


class FuzzySessions:
    def __init__(self) -> None:
        self._tokens: dict[tuple[int, str], Search] = {}
        self._sessions: dict[int, dict[str, Session]] = {}

    @contextmanager
    def search(self, conn_id: int, token: str | None) -> Iterator[Search]:
        """A new search; with a token, the connection's earlier search under it is superseded."""
        this = Search()
        key = (conn_id, token) if token else None
        if key is not None:
            earlier = self._tokens.get(key)
            if earlier is not None:
                earlier.superseded = True
            self._tokens[key] = this
        try:
            yield this
        finally:
            if key is not None and self._tokens.get(key) is this:
                del self._tokens[key]

    def start(self, conn_id: int, session_id: str, roots: list[str], real_roots: list[str]) -> None:
        """Start (or restart) a session of the connection."""
        mine = self._sessions.setdefault(conn_id, {})
        if session_id not in mine and len(mine) >= MAX_SESSIONS_PER_CONNECTION:
            raise InvalidRequest(f"too many file search sessions (limit {MAX_SESSIONS_PER_CONNECTION})")
        old = mine.pop(session_id, None)
        if old is not None:
            old.stop()
        mine[session_id] = Session(roots, real_roots)

    def get(self, conn_id: int, session_id: str) -> Session:
        session = self._sessions.get(conn_id, {}).get(session_id)
        if session is None:
            raise InvalidRequest(f"unknown file search session: {session_id}")
        return session

    def stop(self, conn_id: int, session_id: str) -> None:
        session = self._sessions.get(conn_id, {}).pop(session_id, None)
        if session is not None:
            session.stop()

    def count(self, conn_id: int) -> int:
        return len(self._sessions.get(conn_id, {}))

    def connection_closed(self, conn: Connection) -> None:
        for session in self._sessions.pop(conn.id, {}).values():
            session.stop()
        for key in [k for k in self._tokens if k[0] == conn.id]:
            self._tokens[key].superseded = True
            del self._tokens[key]
