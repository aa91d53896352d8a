"""Connection caps for the socket listeners: in all, and per peer address, before and after auth.

A connection holds its slot from the moment its upgrade is accepted until its socket is gone, so a
client that opens connections faster than it closes them is refused rather than exhausting file
descriptors and memory for everyone else.

Before that, from `accept()` until the upgrade, a TCP socket holds a pre-auth slot, capped by the
same numbers in a pool of its own: a flood of idle unauthenticated sockets cannot take the slots
of authenticated clients nor the file descriptors the daemon needs. A newcomer takes the slot of
the oldest socket still waiting from the same peer (or in all), rather than being refused: sockets
held open doing nothing cannot lock out a client that completes its upgrade at once, and each one
waits at most the pre-auth timeout.
"""

from __future__ import annotations

import asyncio
import resource
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

DEFAULT_MAX_CONNECTIONS = 512
DEFAULT_MAX_PER_PEER = 128
DEFAULT_PRE_AUTH_TIMEOUT_S = 10.0
# Codex's limit for one unfragmented message (advertised on the control socket). Here, not in
# `websocket`, so that reading options does not load websockets (issue 31).
MAX_MESSAGE_BYTES = 16 * 1024 * 1024
TOO_MANY = "too many connections; retry later"
TOO_MANY_FROM_PEER = "too many connections from this address; retry later"
# Descriptors beyond the sockets' own: the store, logs, children's pipes, MCP servers.
_SPARE_FILES = 1024


@dataclass
class ConnectionLimits:
    """Counts open socket connections; `peer` is the remote IP (or `unix` for the control socket).

    The per-peer cap does not apply to the control socket: only its owner can connect there.
    """

    max_total: int = DEFAULT_MAX_CONNECTIONS
    max_per_peer: int = DEFAULT_MAX_PER_PEER
    evicted: int = 0
    _open: Counter[str] = field(default_factory=Counter)
    # Insertion order is age: the first entry is the oldest socket still waiting.
    _pending: dict[Hashable, tuple[str, Callable[[], None]]] = field(default_factory=dict)
    _pending_by_peer: dict[str, dict[Hashable, None]] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self._open.values())

    @property
    def pending(self) -> int:
        return len(self._pending)

    def admit(self, peer: str, lost: asyncio.Future[None]) -> str | None:
        """Take a slot until `lost` completes; the refusal reason when there is none free."""
        if self.total >= self.max_total:
            return TOO_MANY
        if peer != "unix" and self._open[peer] >= self.max_per_peer:
            return TOO_MANY_FROM_PEER
        self._open[peer] += 1
        lost.add_done_callback(lambda _f: self._release(peer))
        return None

    def _release(self, peer: str) -> None:
        self._open[peer] -= 1
        if self._open[peer] <= 0:
            del self._open[peer]

    def arrived(self, key: Hashable, peer: str, abort: Callable[[], None]) -> None:
        """A TCP socket was accepted: it waits in the pre-auth pool until `settled`.

        When the peer's share or the pool is full, the oldest waiting socket is aborted to make room.
        """
        mine = self._pending_by_peer.setdefault(peer, {})
        if len(mine) >= self.max_per_peer:
            self._evict(next(iter(mine)))
        if len(self._pending) >= self.max_total:
            self._evict(next(iter(self._pending)))
        self._pending[key] = (peer, abort)
        self._pending_by_peer.setdefault(peer, {})[key] = None

    def settled(self, key: Hashable) -> None:
        """The socket was upgraded or closed: its pre-auth slot is free (idempotent)."""
        entry = self._pending.pop(key, None)
        if entry is None:
            return
        mine = self._pending_by_peer[entry[0]]
        del mine[key]
        if not mine:
            del self._pending_by_peer[entry[0]]

    def _evict(self, key: Hashable) -> None:
        _peer, abort = self._pending[key]
        self.settled(key)
        self.evicted += 1
        abort()

    def open_files_wanted(self) -> int:
        """Descriptors enough for both pools full and the daemon's own files."""
        return 2 * self.max_total + _SPARE_FILES


def raise_open_files(wanted: int) -> int:
    """Raise the soft RLIMIT_NOFILE to `wanted` (at most the hard limit, never lower); the result.

    Not all the way to the hard limit: the children inherit it, and some programs walk every
    possible descriptor (to close them, or with select()) up to it.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and target > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        return target
    return soft
