"""Per-connection state: the initialize gate, capabilities, and a bounded outbox."""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from dataclasses import dataclass, field

from tether_server import log
from tether_server.transports.base import FrameStream

_log = log.get("tether.rpc")
_ids = itertools.count(1)
_MAX_BATCH = 1024
DEFAULT_OUTBOX = 16_384


@dataclass
class Capabilities:
    experimental_api: bool = False
    opt_out: frozenset[str] = field(default_factory=frozenset)


class Connection:
    """One client. Everything sent to it goes through one bounded outbox, in order.

    A client that stops reading fills its outbox; it is then disconnected so that nobody else
    waits on it (design.md "Backpressure").
    """

    def __init__(self, stream: FrameStream, *, outbox_capacity: int = DEFAULT_OUTBOX) -> None:
        self.id = next(_ids)
        self.stream = stream
        self.initialized = False
        self.client_name = ""
        self.client_version = ""
        self.capabilities = Capabilities()
        self.inflight = 0  # this client's requests still running (the dispatcher caps it)
        # A deque and one wake-up future rather than an asyncio.Queue: a frame is queued per
        # notification per client, and the writer takes whatever has piled up in one go.
        self._outbox: deque[bytes] = deque()
        self._capacity = outbox_capacity
        self._wakeup: asyncio.Future[None] | None = None
        self.closed = asyncio.Event()
        self.close_reason = ""

    @property
    def is_open(self) -> bool:
        return not self.closed.is_set()

    @property
    def outbox_depth(self) -> int:
        """Frames queued and not yet written."""
        return len(self._outbox)

    def wants(self, method: str) -> bool:
        """Whether a notification `method` should reach this client at all."""
        return self.initialized and method not in self.capabilities.opt_out

    def send_frame(self, frame: bytes) -> bool:
        """Queue an encoded message; False (and the client is dropped) when the outbox is full."""
        if self.closed.is_set():
            return False
        if len(self._outbox) >= self._capacity:
            return self._overflow()
        self._outbox.append(frame)
        self._wake()
        return True

    def send_frames(self, frames: list[bytes]) -> bool:
        """`send_frame` for each of `frames`, with one check and one wake-up for all of them."""
        if self.closed.is_set():
            return False
        room = self._capacity - len(self._outbox)
        if len(frames) > room:
            self._outbox.extend(frames[: max(room, 0)])
            return self._overflow()
        self._outbox.extend(frames)
        self._wake()
        return True

    def _overflow(self) -> bool:
        _log.warning("connection.slow_consumer", connection_id=self.id, transport=self.stream.label)
        self.shutdown("slow consumer: outbox full")
        return False

    def _wake(self) -> None:
        wakeup = self._wakeup
        if wakeup is not None and not wakeup.done():
            wakeup.set_result(None)

    def shutdown(self, reason: str) -> None:
        """Stop this connection: the writer finishes what is queued and closes the stream."""
        if self.closed.is_set():
            return
        self.close_reason = reason
        self.closed.set()
        self._wake()

    def _take_batch(self) -> list[bytes]:
        """Everything already queued (up to a bound): one write per burst instead of one per message."""
        outbox = self._outbox
        if len(outbox) <= _MAX_BATCH:
            batch = list(outbox)
            outbox.clear()
            return batch
        return [outbox.popleft() for _ in range(_MAX_BATCH)]

    async def write_loop(self) -> None:
        """Drain the outbox to the stream until shutdown; owned by the connection's task group."""
        loop = asyncio.get_running_loop()
        try:
            while True:
                if not self._outbox:
                    if self.closed.is_set():
                        break
                    self._wakeup = loop.create_future()
                    await self._wakeup
                    self._wakeup = None
                    continue
                await self.stream.send_batch(self._take_batch())
        except ConnectionError:
            pass
        finally:
            self.closed.set()
            await self.stream.close(self.close_reason)
