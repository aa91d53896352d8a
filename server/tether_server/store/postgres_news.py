"""The fleet's news: notifications every node's clients get, carried by PostgreSQL LISTEN/NOTIFY.

A notification about the thread list (a thread started, renamed, archived, deleted …) is sent by
the node that made the change to its own clients, and published on one channel; every other node
hears it on a connection of its own that LISTENs there and sends it to its clients. The sender
skips its own news (its clients had it already). NOTIFY is delivered after the publishing
transaction commits, in commit order, to every listening session; a payload is at most 8000 bytes.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
import psycopg

from tether_server import log
from tether_server.store.base import StoreError
from tether_server.store.postgres_leases import Transaction

_log = log.get("tether.fleet")
CHANNEL = "tether_fleet_news"
PAYLOAD_MAX = 7900  # PostgreSQL's limit is 8000 bytes, minus room for the channel's bookkeeping
_RETRY_S = 1.0

# Another node's news as heard: the method, its params (wire form), and the parts of them the
# sender left out for size (the receiver reads those from the store).
Heard = Callable[[str, dict[str, Any], list[str]], Awaitable[None]]


class FleetNews:
    def __init__(self, url: str, transaction: Transaction, node_id: str) -> None:
        self._url = url
        self._transaction = transaction
        self.node_id = node_id
        self._listener: asyncio.Task[None] | None = None
        self.listening = asyncio.Event()

    async def publish(self, method: str, params: dict[str, Any], shrink: Callable[[], list[str]]) -> None:
        """Tell the other nodes; `shrink` drops from `params` what they can read from the store."""
        payload = orjson.dumps({"n": self.node_id, "m": method, "p": params})
        if len(payload) > PAYLOAD_MAX:
            omitted = shrink()
            payload = orjson.dumps({"n": self.node_id, "m": method, "p": params, "o": omitted})
        if len(payload) > PAYLOAD_MAX:
            _log.warning("fleet.news_too_large", method=method, size=len(payload))
            return
        try:
            async with self._transaction() as conn:
                await conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload.decode()))
        except StoreError as exc:  # the other nodes miss this one; their clients' next list has it
            _log.warning("fleet.news_lost", method=method, error=str(exc))

    def start(self, heard: Heard) -> None:
        self._listener = asyncio.get_running_loop().create_task(self._listen(heard))

    async def _listen(self, heard: Heard) -> None:
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self._url, autocommit=True)
            except psycopg.Error as exc:
                _log.warning("fleet.news_unreachable", error=str(exc).strip().splitlines()[:1])
                await asyncio.sleep(_RETRY_S)
                continue
            try:
                async with conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    async for note in conn.notifies():
                        await self._hear(note.payload, heard)
            except psycopg.Error as exc:  # news sent while reconnecting is missed, as said in fleet.md
                _log.warning("fleet.news_disconnected", error=str(exc).strip().splitlines()[:1])
            self.listening.clear()
            await asyncio.sleep(_RETRY_S)

    async def _hear(self, payload: str, heard: Heard) -> None:
        try:
            news = orjson.loads(payload)
            node, method, params = news["n"], news["m"], news["p"]
            omitted = news.get("o", [])
        except (orjson.JSONDecodeError, KeyError, TypeError):
            _log.warning("fleet.news_unparseable", size=len(payload))
            return
        if node == self.node_id:
            return
        try:
            await heard(method, params, omitted)
        except (StoreError, KeyError, TypeError) as exc:  # one bad message must not end the listener
            _log.warning("fleet.news_undelivered", method=method, error=repr(exc))

    async def stop(self) -> None:
        task, self._listener = self._listener, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
