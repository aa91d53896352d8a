"""Client channels for the socket transports: WebSocket over a Unix socket or over TCP."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from websockets.asyncio.client import ClientConnection, connect, unix_connect
from websockets.exceptions import ConnectionClosed

from conformance.server import ServerProcess

CONNECT_WITHIN_S = 30.0
RETRY_S = 0.05


class WebSocketChannel:
    """One JSON-RPC message per text frame."""

    def __init__(self, ws: ClientConnection) -> None:
        self._ws = ws

    async def send(self, frame: bytes) -> None:
        """Send one text frame."""
        await self._ws.send(frame.decode())

    async def frames(self) -> AsyncIterator[bytes]:
        """Frames until the server closes."""
        try:
            async for frame in self._ws:
                yield frame.encode() if isinstance(frame, str) else frame
        except ConnectionClosed:
            return

    async def close(self) -> None:
        """Close the WebSocket."""
        await self._ws.close()


async def connect_socket(listen: str, server: ServerProcess) -> WebSocketChannel:
    """Connect to `listen` (unix://PATH or ws://HOST:PORT), retrying while the server starts up."""
    async with asyncio.timeout(CONNECT_WITHIN_S):
        while True:
            if server.proc.returncode is not None:
                raise ConnectionError(
                    f"server exited ({server.proc.returncode}) before listening on {listen}"
                )
            try:
                return WebSocketChannel(await _open(listen))
            except OSError:
                # The listener is not up yet; the server is still starting.
                await asyncio.sleep(RETRY_S)


async def _open(listen: str) -> ClientConnection:
    if listen.startswith("unix://"):
        return await unix_connect(listen.removeprefix("unix://"), uri="ws://localhost/rpc", max_size=2**26)
    return await connect(listen, max_size=2**26)
