"""An in-process client: the client end of a `transports.memory` pair, served by a real Dispatcher.

The frames are the same bytes a socket would carry, so everything above the transport (the rpc
engine, the processor, the threads) runs as in the daemon; failures come with their tracebacks.
"""

from __future__ import annotations

import asyncio
import json

from tests.support.rpcclient import WAIT_S, RpcClient
from tether_server.rpc.connection import DEFAULT_OUTBOX, Connection
from tether_server.rpc.dispatcher import Dispatcher
from tether_server.transports.memory import memory_pair


class MemoryClient(RpcClient):
    """A client connected to `dispatcher` in this process."""

    def __init__(self, dispatcher: Dispatcher, *, outbox_capacity: int = DEFAULT_OUTBOX) -> None:
        super().__init__()
        server_end, self.stream = memory_pair()
        self.connection = Connection(server_end, outbox_capacity=outbox_capacity)
        self._serving = asyncio.create_task(dispatcher.serve(self.connection))
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for frame in self.stream.frames():
                self._accept(json.loads(frame))
        finally:
            self._wake()

    async def send_raw(self, data: bytes) -> None:
        for line in data.splitlines():
            await self.stream.send(line)

    def ended(self) -> bool:
        return self._reader.done()

    async def close(self, *, check: bool = False) -> int:
        """End of input, as a stdio client closing stdin; waits until the connection is served out.

        Returns 0 (what `AppServer.close` returns for a daemon that exited cleanly); with `check`,
        fails when anything received broke the reference schema.
        """
        self.stream.finish_sending()
        async with asyncio.timeout(WAIT_S):
            await self._serving
            await self._reader
        if check:
            self.check()
        return 0
