"""A fleet node's ownership of its loaded threads: claiming leases, renewing them, losing them.

Only a daemon on a PostgreSQL store is a fleet node; on SQLite there is one daemon per file and
no lease. A request for a thread another live node owns is relayed to it (processor.fleet_forward)
when both listen for each other; else it is refused by name. A thread whose owner stopped
renewing is waited for until its lease expires, then taken over.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from tether_server import log
from tether_server.core.ids import now_s
from tether_server.errors import InvalidRequest
from tether_server.store.base import StoreError, ThreadStore, TurnRecord

if TYPE_CHECKING:  # psycopg loads only in a daemon on PostgreSQL
    from tether_server.store.postgres_leases import Holder, Leases
    from tether_server.store.postgres_news import FleetNews, Heard

_log = log.get("tether.fleet")
DEFAULT_LEASE_S = 10.0
NODE_ENV = "TETHER_NODE_ID"
LEASE_ENV = "TETHER_LEASE_SECONDS"


def default_node_id() -> str:
    """Unique per daemon on a host: two daemons on one machine never share an id."""
    return f"{socket.gethostname()}-{os.getpid()}"


class OwnedElsewhere(InvalidRequest):
    """The thread is loaded on another live node."""

    def __init__(self, thread_id: str, holder: Holder) -> None:
        super().__init__(
            f"thread {thread_id} is owned by fleet node {holder.node_id!r}; requests for it must go "
            f"to that node (this node cannot forward them: both need --fleet-listen and the same "
            f"--fleet-secret-file)"
        )
        self.owner = holder.node_id


class Ownership:
    def __init__(self, store: ThreadStore, leases: Leases) -> None:
        self._store = store
        self.leases = leases
        self._renewer: asyncio.Task[None] | None = None
        news_of = getattr(store, "fleet_news", None)
        self.news: FleetNews | None = news_of(leases.node_id) if news_of is not None else None

    @property
    def node_id(self) -> str:
        return self.leases.node_id

    def created(self, thread_id: str) -> None:
        """A thread made here: its first commit takes its lease."""
        from tether_server.store.postgres_leases import NEW

        self.leases.fence[thread_id] = NEW

    async def claim(self, thread_id: str) -> list[TurnRecord]:
        """Own the thread, waiting at most until a silent owner's lease expires (plus a second).

        Returns the turns a former owner left running, now interrupted. Raises OwnedElsewhere when
        its owner renews the lease meanwhile (it is alive).
        """
        mine = thread_id in self.leases.fence
        loop = asyncio.get_running_loop()
        seen: Holder | None = None
        deadline = 0.0
        while True:
            got = await self.leases.acquire(thread_id)
            if isinstance(got, int):
                break
            if seen is None:
                seen, deadline = got, loop.time() + got.expires_in_s + 1.0
            elif got.renewed_at != seen.renewed_at or got.node_id != seen.node_id or loop.time() > deadline:
                raise OwnedElsewhere(thread_id, got)
            # The database's clock decides expiry; poll it, never much past the moment it comes.
            await asyncio.sleep(min(0.1, got.expires_in_s + 0.01))
        _log.info(
            "lease.taken", thread_id=thread_id, node_id=self.node_id, epoch=got, waited=seen is not None
        )
        if mine:
            return []
        interrupted = await self.leases.interrupt(thread_id, now_s())
        if not interrupted:
            return []
        loaded = await self._store.load_thread(thread_id)
        turns = [t for t in (loaded.turns if loaded else []) if t.turn_id in interrupted]
        for turn in turns:
            _log.warning("turn.taken_over_as_interrupted", thread_id=thread_id, turn_id=turn.turn_id)
        return turns

    async def owner_elsewhere(self, thread_id: str) -> tuple[str, str | None] | None:
        """Another live node holding the thread's lease, and its advertised address; else None."""
        owner = await self.leases.owner_address(thread_id)
        return None if owner is None or owner[0] == self.node_id else owner

    async def release(self, thread_id: str) -> None:
        try:
            await self.leases.release(thread_id)
        except StoreError as exc:  # it expires by itself; another node waits at most that long
            _log.warning("lease.release_failed", thread_id=thread_id, error=str(exc))

    def start(self, lose: Callable[[str], Awaitable[None]], heard: Heard | None = None) -> None:
        """Renew this node's leases in the background; `lose` unloads a thread taken over;
        `heard` delivers the other nodes' news to this node's clients."""
        self._renewer = asyncio.get_running_loop().create_task(self._renew(lose))
        if self.news is not None and heard is not None:
            self.news.start(heard)

    async def _renew(self, lose: Callable[[str], Awaitable[None]]) -> None:
        interval = self.leases.duration_s / 3
        while True:
            try:
                lost = await self.leases.renew()
            except StoreError as exc:  # the database is away: the next round tries again
                _log.warning("lease.renew_failed", node_id=self.node_id, error=str(exc))
                lost = []
            for thread_id in lost:
                _log.warning("lease.lost", thread_id=thread_id, node_id=self.node_id)
                await lose(thread_id)
            await asyncio.sleep(interval)

    async def hearing(self) -> None:
        """Until this node hears the other nodes' news, so that a client it serves misses none
        (bounded: a database slow to take the listener delays the start by a lease at most)."""
        if self.news is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.leases.duration_s):
                    await self.news.listening.wait()

    async def stop(self) -> None:
        if self.news is not None:
            await self.news.stop()
        task, self._renewer = self._renewer, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        with contextlib.suppress(StoreError):
            await self.leases.leave()
