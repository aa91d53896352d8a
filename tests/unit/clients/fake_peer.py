"""An in-memory Transport whose far end the test plays: it reads what the client sent and answers."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from tether_client.errors import TransportClosed


class PeerTransport:
    """The client's end of an in-memory pipe; `sent` holds what the client wrote."""

    def __init__(self) -> None:
        self.sent: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._incoming: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.closed = False

    async def send(self, frame: bytes) -> None:
        if self.closed:
            raise TransportClosed("closed")
        self.sent.put_nowait(json.loads(frame))

    async def frames(self) -> AsyncIterator[bytes]:
        while (frame := await self._incoming.get()) is not None:
            yield frame

    async def close(self) -> None:
        self.hang_up()

    # ---- the test's side ----------------------------------------------------------------------

    def push(self, message: dict[str, Any]) -> None:
        self._incoming.put_nowait(json.dumps(message).encode())

    def hang_up(self) -> None:
        if not self.closed:
            self.closed = True
            self._incoming.put_nowait(None)

    async def next_sent(self) -> dict[str, Any]:
        async with asyncio.timeout(5):
            return await self.sent.get()
