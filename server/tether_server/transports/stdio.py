"""stdio transport: one connection for the life of the process, JSONL both ways."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator

from tether_server.transports.framing import LineFramer


class StdioStream:
    """JSONL over the process's stdin/stdout. EOF on stdin ends the connection."""

    label = "stdio"

    def __init__(self, stdin_fd: int | None = None, stdout_fd: int | None = None) -> None:
        self._in_fd = sys.stdin.fileno() if stdin_fd is None else stdin_fd
        self._out_fd = sys.stdout.fileno() if stdout_fd is None else stdout_fd
        self._writer: asyncio.StreamWriter | None = None
        self._closed = False

    async def _ensure_writer(self) -> asyncio.StreamWriter:
        if self._writer is None:
            loop = asyncio.get_running_loop()
            pipe = os.fdopen(os.dup(self._out_fd), "wb", buffering=0)
            transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, pipe)
            self._writer = asyncio.StreamWriter(transport, protocol, None, loop)
        return self._writer

    async def frames(self) -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=2**20, loop=loop)
        pipe = os.fdopen(os.dup(self._in_fd), "rb", buffering=0)
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader, loop=loop), pipe
        )
        framer = LineFramer()
        try:
            while True:
                chunk = await reader.read(2**16)
                if not chunk:
                    for frame in framer.eof():
                        yield frame
                    return
                for frame in framer.feed(chunk):
                    yield frame
        finally:
            transport.close()

    async def send(self, frame: bytes) -> None:
        if self._closed:
            raise ConnectionError("stdio closed")
        writer = await self._ensure_writer()
        writer.write(frame + b"\n")
        await writer.drain()

    async def close(self, reason: str = "") -> None:
        if self._closed:
            return
        self._closed = True
        if self._writer is not None:
            self._writer.close()
