"""Thread ownership on PostgreSQL: leases with fencing epochs, and the nodes' heartbeats.

A node owns a loaded thread while its row in `thread_leases` names it and has not expired (the
database's clock decides). Taking a free or expired lease bumps its epoch; every commit of a
thread this node owns checks, in its own transaction and with the lease row share-locked, that
the stored owner and epoch are still this node's, so a paused or partitioned former owner's
write is refused atomically and cannot interleave with the new owner's (a takeover's UPDATE
waits for that share lock, and a commit that starts after the takeover sees the new epoch).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg

from tether_server.store.base import Batch, StoreError

Conn = psycopg.AsyncConnection[tuple[Any, ...]]
Transaction = Callable[[], AbstractAsyncContextManager[Conn]]
NEW = 0  # a thread created here: its lease is taken by its first commit
LOST = -1  # a lease another node took over: every commit of the thread is refused

_ACQUIRE = """
INSERT INTO thread_leases AS l (thread_id, node_id, epoch, renewed_at, expires_at)
VALUES (%(t)s, %(n)s, 1, now(), now() + %(d)s * interval '1 second')
ON CONFLICT (thread_id) DO UPDATE
    SET node_id = excluded.node_id, epoch = l.epoch + 1, renewed_at = now(),
        expires_at = excluded.expires_at
    WHERE l.expires_at <= now()
RETURNING epoch"""
_HOLDER = """
SELECT node_id, epoch, renewed_at, GREATEST(0, EXTRACT(EPOCH FROM expires_at - now()))
FROM thread_leases WHERE thread_id = %s AND expires_at > now()"""
_RENEW = """
UPDATE thread_leases AS l SET renewed_at = now(), expires_at = now() + %s * interval '1 second'
FROM unnest(%s::text[], %s::bigint[]) AS m(thread_id, epoch)
WHERE l.thread_id = m.thread_id COLLATE "C" AND l.epoch = m.epoch AND l.node_id = %s
RETURNING l.thread_id"""
_BEAT = """
INSERT INTO fleet_nodes AS f (node_id, address, started_at, heartbeat_at, expires_at)
VALUES (%(n)s, NULL, now(), now(), now() + %(d)s * interval '1 second')
ON CONFLICT (node_id) DO UPDATE SET heartbeat_at = now(), expires_at = excluded.expires_at"""
_INTERRUPT = """
UPDATE turns SET status = 'interrupted', completed_at = %s
WHERE thread_id = %s AND status = 'inProgress' RETURNING turn_id, ordinal"""
STATUS = """
SELECT f.node_id, f.address, f.expires_at > now(), f.heartbeat_at,
    (SELECT count(*) FROM thread_leases l WHERE l.node_id = f.node_id AND l.expires_at > now())
FROM fleet_nodes f ORDER BY f.node_id"""

_ADVERTISE = """
INSERT INTO fleet_nodes AS f (node_id, address, started_at, heartbeat_at, expires_at)
VALUES (%(n)s, %(a)s, now(), now(), now() + %(d)s * interval '1 second')
ON CONFLICT (node_id) DO UPDATE SET address = excluded.address"""
_OWNER = """
SELECT l.node_id, f.address FROM thread_leases l JOIN fleet_nodes f ON f.node_id = l.node_id
WHERE l.thread_id = %s AND l.expires_at > now() AND f.expires_at > now()"""

_BOUND = "SELECT set_config('idle_in_transaction_session_timeout', %s, true)"


class StaleOwner(StoreError):
    """This node's lease on the thread was taken over: the write is refused, nothing is written."""


@dataclass(frozen=True)
class Holder:
    """The live lease another node holds on a thread."""

    node_id: str
    epoch: int
    renewed_at: datetime
    expires_in_s: float


class Leases:
    """This node's leases, and the fence every commit passes through."""

    def __init__(self, transaction: Transaction, node_id: str, duration_s: float) -> None:
        self._transaction = transaction
        self.node_id = node_id
        self.duration_s = duration_s
        self.fence: dict[str, int] = {}  # thread id -> epoch held here (or NEW, LOST)
        self._idle_bound = f"{max(500, int(duration_s * 500))}ms"

    async def _bound(self, conn: Conn) -> None:
        """A node paused inside a transaction holding a lease row's lock would stall every
        takeover of that thread: the server ends such a transaction after half a lease."""
        await conn.execute(_BOUND, (self._idle_bound,))

    async def acquire(self, thread_id: str) -> int | Holder:
        """Take the thread's lease (free, expired, or already ours): its epoch; else its holder."""
        # One transaction, so one `now()`: the row either passed the takeover's expiry test or is
        # live for the SELECT, never neither.
        async with self._transaction() as conn:
            cur = await conn.execute(_ACQUIRE, {"t": thread_id, "n": self.node_id, "d": self.duration_s})
            row = await cur.fetchone()
            if row is None:
                cur = await conn.execute(_HOLDER, (thread_id,))
                held = await cur.fetchone()
                if held is None:
                    raise StoreError(f"the lease of thread {thread_id} vanished while it was taken")
                if held[0] != self.node_id:
                    return Holder(str(held[0]), int(held[1]), held[2], float(held[3]))
                row = (held[1],)
        epoch = int(row[0])
        self.fence[thread_id] = epoch
        return epoch

    async def holder(self, thread_id: str) -> Holder | None:
        async with self._transaction() as conn:
            cur = await conn.execute(_HOLDER, (thread_id,))
            held = await cur.fetchone()
        return None if held is None else Holder(str(held[0]), int(held[1]), held[2], float(held[3]))

    async def interrupt(self, thread_id: str, now: int) -> list[str]:
        """Close the turns a former owner left in progress (as interrupted), in order."""
        async with self._transaction() as conn:
            cur = await conn.execute(_INTERRUPT, (now, thread_id))
            rows = await cur.fetchall()
        return [str(r[0]) for r in sorted(rows, key=lambda r: (r[1], r[0]))]

    async def renew(self) -> list[str]:
        """Extend every lease held here and beat the node's heart; returns the threads lost."""
        held = [(thread_id, epoch) for thread_id, epoch in self.fence.items() if epoch > 0]
        async with self._transaction() as conn:
            await self._bound(conn)
            await conn.execute(_BEAT, {"n": self.node_id, "d": self.duration_s})
            # One statement for every lease: a node holding thousands renews in one round trip.
            ids, epochs = [t for t, _ in held], [e for _, e in held]
            cur = await conn.execute(_RENEW, (self.duration_s, ids, epochs, self.node_id))
            renewed = {str(row[0]) for row in await cur.fetchall()}
        lost: list[str] = []
        for thread_id, epoch in held:
            # Released or claimed again meanwhile: this round's answer is not about that lease.
            if thread_id not in renewed and self.fence.get(thread_id) == epoch:
                self.fence[thread_id] = LOST
                lost.append(thread_id)
        return lost

    async def release(self, thread_id: str) -> None:
        """Expire our lease so another node takes the thread at once (the epoch stays)."""
        epoch = self.fence.get(thread_id)
        if epoch is None or epoch == LOST:
            return
        del self.fence[thread_id]
        if epoch == NEW:
            return
        async with self._transaction() as conn:
            await conn.execute(
                "UPDATE thread_leases SET expires_at = now() WHERE thread_id = %s AND node_id = %s "
                "AND epoch = %s",
                (thread_id, self.node_id, epoch),
            )

    async def leave(self) -> None:
        """The node stops: it shows as dead at once."""
        async with self._transaction() as conn:
            await conn.execute(
                "UPDATE fleet_nodes SET expires_at = now() WHERE node_id = %s", (self.node_id,)
            )

    async def advertise(self, address: str | None) -> None:
        """Record where other nodes reach this one (None: they cannot), live from now on."""
        async with self._transaction() as conn:
            await conn.execute(_ADVERTISE, {"n": self.node_id, "a": address, "d": self.duration_s})

    async def owner_address(self, thread_id: str) -> tuple[str, str | None] | None:
        """The live node holding the thread's live lease, and the address it advertises."""
        async with self._transaction() as conn:
            cur = await conn.execute(_OWNER, (thread_id,))
            row = await cur.fetchone()
        return None if row is None else (str(row[0]), row[1])

    async def check(self, conn: Conn, batch: Batch) -> None:
        """In the commit's transaction: refuse it unless this node still owns every thread it writes."""
        await self.check_threads(conn, _threads_of(batch))

    async def check_threads(self, conn: Conn, thread_ids: Iterable[str]) -> None:
        """In a write's transaction: refuse it (StaleOwner) unless this node still owns every one
        of these threads that it leased; a thread it never loaded passes (no lease to check)."""
        bounded = False
        for thread_id in sorted(set(thread_ids)):
            epoch = self.fence.get(thread_id)
            if epoch is None:
                continue
            if not bounded:
                await self._bound(conn)
                bounded = True
            if epoch == NEW:
                await conn.execute(_ACQUIRE, {"t": thread_id, "n": self.node_id, "d": self.duration_s})
            cur = await conn.execute(
                "SELECT node_id, epoch FROM thread_leases WHERE thread_id = %s FOR SHARE", (thread_id,)
            )
            row = await cur.fetchone()
            stored = (str(row[0]), int(row[1])) if row is not None else None
            if epoch == NEW and stored is not None and stored[0] == self.node_id:
                epoch = stored[1]
            if stored != (self.node_id, epoch):
                owner = f"node {stored[0]!r} (epoch {stored[1]})" if stored else "no node"
                raise StaleOwner(
                    f"thread {thread_id} is now owned by {owner}; node {self.node_id!r} "
                    f"lost its lease and its write was refused"
                )
            self.fence[thread_id] = epoch


def _threads_of(batch: Batch) -> set[str]:
    ids = {t.thread_id for t in batch.turns} | {i.thread_id for i in batch.items}
    ids |= {h.thread_id for h in batch.history} | {e.thread_id for e in batch.events}
    if batch.thread is not None:
        ids.add(batch.thread.id)
    return ids


async def fleet_rows(conn: Conn) -> AsyncIterator[tuple[str, str | None, bool, datetime, int]]:
    """Every node that ever beat: id, advertised address, live, last heartbeat, threads owned."""
    cur = await conn.execute("SELECT to_regclass('fleet_nodes')")
    found = await cur.fetchone()
    if found is None or found[0] is None:  # no node (of this version) ever ran on this database
        return
    cur = await conn.execute(STATUS)
    for row in await cur.fetchall():
        yield str(row[0]), row[1], bool(row[2]), row[3], int(row[4])
