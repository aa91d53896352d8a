"""In-process transport: two connected `FrameStream` ends, for running the app inside a test or an
embedding process without a pipe or a socket.

The frames are the bytes a socket would carry, so everything above the transport (the rpc engine,
the processor, the threads) runs exactly as in the daemon. Like a socket pair, each end can stop
sending (`finish_sending`, a half-close: the peer's `frames()` ends, replies still flow back, as when a
stdio client closes stdin) or close (`close`: both directions end).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from tether_server.transports.base import FrameStream


class MemoryStream(FrameStream):
    """One end of a `memory_pair`. Frames sent on one end arrive, in order, at the other's `frames()`."""

    def __init__(self, label: str) -> None:
        self.label = label
        self._inbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._peer: MemoryStream | None = None
        self._sending = True
        self.closed = False
        self.close_reason = ""

    def _connect(self, peer: MemoryStream) -> None:
        self._peer = peer

    async def frames(self) -> AsyncIterator[bytes]:
        """Incoming frames until the peer stops sending or either end closes."""
        while not self.closed and (frame := await self._inbox.get()) is not None:
            yield frame

    async def send(self, frame: bytes) -> None:
        """Deliver one frame to the peer; ConnectionError once this end stopped or the peer closed."""
        peer = self._peer
        if peer is None or not self._sending or peer.closed:
            raise ConnectionError(f"{self.label}: closed")
        peer._inbox.put_nowait(bytes(frame))

    def finish_sending(self) -> None:
        """Half-close: the peer's `frames()` ends after what was already sent; this end can still read."""
        if self._sending:
            self._sending = False
            if self._peer is not None:
                self._peer._inbox.put_nowait(None)

    async def close(self, reason: str = "") -> None:
        """Close both directions; idempotent. The reason is kept for the peer to read."""
        if self.closed:
            return
        self.finish_sending()
        self.closed = True
        self.close_reason = reason
        if self._peer is not None and not self._peer.close_reason:
            self._peer.close_reason = reason
        self._inbox.put_nowait(None)


def memory_pair(label: str = "memory") -> tuple[MemoryStream, MemoryStream]:
    """Two connected ends: hand the first to `Dispatcher.serve` (through a Connection), keep the second."""
    server, client = MemoryStream(label), MemoryStream(f"{label} client")
    server._connect(client)
    client._connect(server)
    return server, client
