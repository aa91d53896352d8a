"""stdio transport: one connection for the life of the process, JSONL both ways."""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections.abc import AsyncIterator

from tether_server.transports.base import FrameStream
from tether_server.transports.framing import LineFramer
from tether_server.transports.stdio_first import Prefill

_CHUNK = 1 << 16


def _is_stream(fd: int) -> bool:
    """Pipes and sockets go through the event loop; files, /dev/null and terminals do not.

    Event-loop pipe transports refuse regular files, and uvloop aborts the process on some
    character devices, so those are read in a worker thread and written synchronously.
    """
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class StdioStream(FrameStream):
    """JSONL over the process's stdin/stdout. EOF on stdin ends the connection."""

    label = "stdio"

    def __init__(
        self, stdin_fd: int | None = None, stdout_fd: int | None = None, prefill: Prefill | None = None
    ) -> None:
        self._in_fd = sys.stdin.fileno() if stdin_fd is None else stdin_fd
        self._prefill = prefill
        self._out_fd = sys.stdout.fileno() if stdout_fd is None else stdout_fd
        self._writer: asyncio.StreamWriter | None = None
        self._closed = False
        self._out_is_stream: bool | None = None

    async def _ensure_writer(self) -> asyncio.StreamWriter:
        if self._writer is None:
            loop = asyncio.get_running_loop()
            pipe = os.fdopen(os.dup(self._out_fd), "wb", buffering=0)
            transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, pipe)
            self._writer = asyncio.StreamWriter(transport, protocol, None, loop)
        return self._writer

    async def frames(self) -> AsyncIterator[bytes]:
        framer = LineFramer()
        prefill, self._prefill = self._prefill, None
        if prefill is not None:  # what the stdio front read before the server was up comes first
            framer = prefill.framer
            for frame in prefill.frames:
                yield frame
            if prefill.eof:
                for frame in framer.eof():
                    yield frame
                return
        chunks = self._stream_chunks() if _is_stream(self._in_fd) else self._thread_chunks()
        async for chunk in chunks:
            for frame in framer.feed(chunk):
                yield frame
        for frame in framer.eof():
            yield frame

    async def _stream_chunks(self) -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=2**20, loop=loop)
        pipe = os.fdopen(os.dup(self._in_fd), "rb", buffering=0)
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader, loop=loop), pipe
        )
        try:
            while chunk := await reader.read(_CHUNK):
                yield chunk
        finally:
            transport.close()

    async def _thread_chunks(self) -> AsyncIterator[bytes]:
        while chunk := await asyncio.to_thread(os.read, self._in_fd, _CHUNK):
            yield chunk

    async def send(self, frame: bytes) -> None:
        await self.send_batch([frame])

    async def send_batch(self, frames: list[bytes]) -> None:
        """Write several frames with one system call (the writer drains bursts this way)."""
        if self._closed:
            raise ConnectionError("stdio closed")
        data = b"\n".join(frames) + b"\n"
        if self._out_is_stream is None:
            self._out_is_stream = _is_stream(self._out_fd)
        if not self._out_is_stream:
            _write_all(self._out_fd, data)
            return
        writer = await self._ensure_writer()
        writer.write(data)
        await writer.drain()

    async def close(self, reason: str = "") -> None:
        if self._closed:
            return
        self._closed = True
        if self._writer is not None:
            self._writer.close()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except OSError as exc:
            raise ConnectionError(str(exc)) from exc
        view = view[written:]
