"""What a transport hands the RPC engine: a connection that moves whole frames."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator


class FrameStream(ABC):
    """One client connection. Frames are JSON texts, one message each, without a trailing newline.

    Every transport subclasses it. The connection's writer sends only through `send_batch`.
    """

    label: str
    """A short description for logs (`stdio`, `unix`, `ws 127.0.0.1:5000`)."""

    @abstractmethod
    def frames(self) -> AsyncIterator[bytes]:
        """Incoming frames until the peer goes away."""

    @abstractmethod
    async def send(self, frame: bytes) -> None:
        """Write one frame; raises ConnectionError once the peer is gone."""

    async def send_batch(self, frames: list[bytes]) -> None:
        """Write `frames` in order, as `send` would one by one, and raise as it does.

        The writer hands over everything queued at once. A transport that can write a burst with
        one system call overrides this.
        """
        for frame in frames:
            await self.send(frame)

    @abstractmethod
    async def close(self, reason: str = "") -> None:
        """Close the connection; idempotent."""
