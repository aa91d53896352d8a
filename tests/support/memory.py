"""An in-process client: a `FrameStream` made of two queues, served by a real Dispatcher.

The frames are the same bytes a socket would carry, so everything above the transport (the rpc
engine, the processor, the threads) runs as in the daemon; failures come with their tracebacks.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from tests.support.rpcclient import WAIT_S, RpcClient
from tether_server.rpc.connection import Connection
from tether_server.rpc.dispatcher import Dispatcher


class MemoryStream:
    """Frames in from a queue, frames out to a callback."""

    label = "memory"

    def __init__(self, deliver: RpcClient) -> None:
        self._incoming: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._client = deliver
        self.closed = False

    def push(self, frame: bytes | None) -> None:
        self._incoming.put_nowait(frame)

    async def frames(self) -> AsyncIterator[bytes]:
        while (frame := await self._incoming.get()) is not None:
            yield frame

    async def send(self, frame: bytes) -> None:
        if self.closed:
            raise ConnectionError("closed")
        self._client._accept(json.loads(frame))

    async def close(self, reason: str = "") -> None:
        self.closed = True
        self._client._wake()


class MemoryClient(RpcClient):
    """A client connected to `dispatcher` in this process."""

    def __init__(self, dispatcher: Dispatcher) -> None:
        super().__init__()
        self.stream = MemoryStream(self)
        self.connection = Connection(self.stream)
        self._serving = asyncio.create_task(dispatcher.serve(self.connection))

    async def send_raw(self, data: bytes) -> None:
        for line in data.splitlines():
            self.stream.push(line)

    def ended(self) -> bool:
        return self.stream.closed or self._serving.done()

    async def close(self) -> None:
        """End of input, as a stdio client closing stdin; waits until the connection is served out."""
        self.stream.push(None)
        async with asyncio.timeout(WAIT_S):
            await self._serving
