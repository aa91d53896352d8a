"""Per-connection state: the initialize gate, capabilities, and a bounded outbox."""

from __future__ import annotations

import asyncio
import itertools
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
        self._outbox: asyncio.Queue[bytes | None] = asyncio.Queue(outbox_capacity)
        self.closed = asyncio.Event()
        self.close_reason = ""

    @property
    def is_open(self) -> bool:
        return not self.closed.is_set()

    @property
    def outbox_depth(self) -> int:
        """Frames queued and not yet written."""
        return self._outbox.qsize()

    def wants(self, method: str) -> bool:
        """Whether a notification `method` should reach this client at all."""
        return self.initialized and method not in self.capabilities.opt_out

    def send_frame(self, frame: bytes) -> bool:
        """Queue an encoded message; False (and the client is dropped) when the outbox is full."""
        if not self.is_open:
            return False
        try:
            self._outbox.put_nowait(frame)
        except asyncio.QueueFull:
            _log.warning("connection.slow_consumer", connection_id=self.id, transport=self.stream.label)
            self.shutdown("slow consumer: outbox full")
            return False
        return True

    def shutdown(self, reason: str) -> None:
        """Stop this connection: the writer finishes what it can and closes the stream."""
        if self.closed.is_set():
            return
        self.close_reason = reason
        self.closed.set()
        # Wake the writer even when the queue is full.
        while True:
            try:
                self._outbox.put_nowait(None)
                break
            except asyncio.QueueFull:
                self._outbox.get_nowait()

    def _take_batch(self, first: bytes | None) -> tuple[list[bytes], bool]:
        """Everything already queued (up to a bound): one write per burst instead of one per message."""
        if first is None:
            return [], True
        batch = [first]
        while len(batch) < _MAX_BATCH:
            try:
                frame = self._outbox.get_nowait()
            except asyncio.QueueEmpty:
                break
            if frame is None:
                return batch, True
            batch.append(frame)
        return batch, False

    async def write_loop(self) -> None:
        """Drain the outbox to the stream until shutdown; owned by the connection's task group."""
        send_batch = getattr(self.stream, "send_batch", None)
        try:
            while True:
                batch, done = self._take_batch(await self._outbox.get())
                if batch:
                    if send_batch is not None:
                        await send_batch(batch)
                    else:
                        for frame in batch:
                            await self.stream.send(frame)
                if done:
                    break
        except ConnectionError:
            pass
        finally:
            self.closed.set()
            await self.stream.close(self.close_reason)
