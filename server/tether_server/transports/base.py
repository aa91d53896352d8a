"""What a transport hands the RPC engine: a connection that moves whole frames."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol


class FrameStream(Protocol):
    """One client connection. Frames are JSON texts, one message each, without a trailing newline."""

    @property
    def label(self) -> str:
        """A short description for logs (`stdio`, `unix`, `ws 127.0.0.1:5000`)."""
        ...

    def frames(self) -> AsyncIterator[bytes]:
        """Incoming frames until the peer goes away."""
        ...

    async def send(self, frame: bytes) -> None:
        """Write one frame; raises ConnectionError once the peer is gone."""
        ...

    async def close(self, reason: str = "") -> None:
        """Close the connection; idempotent."""
        ...
