"""Connection caps for the socket listeners: in all, and per peer address.

A connection holds its slot from the moment its upgrade is accepted until its socket is gone, so a
client that opens connections faster than it closes them is refused rather than exhausting file
descriptors and memory for everyone else.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field

DEFAULT_MAX_CONNECTIONS = 512
DEFAULT_MAX_PER_PEER = 128
TOO_MANY = "too many connections; retry later"
TOO_MANY_FROM_PEER = "too many connections from this address; retry later"


@dataclass
class ConnectionLimits:
    """Counts open socket connections; `peer` is the remote IP (or `unix` for the control socket).

    The per-peer cap does not apply to the control socket: only its owner can connect there.
    """

    max_total: int = DEFAULT_MAX_CONNECTIONS
    max_per_peer: int = DEFAULT_MAX_PER_PEER
    _open: Counter[str] = field(default_factory=Counter)

    @property
    def total(self) -> int:
        return sum(self._open.values())

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
