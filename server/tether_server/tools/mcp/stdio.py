"""The stdio transport to an MCP server, with a bound on the size of one message.

The SDK's `stdio_client` joins a line's chunks without limit (copying the line so far at every
chunk): a server that writes a 1 GiB line, or one line that never ends, grows the daemon's memory
without bound. This is the same transport with the line kept in one buffer and refused past
`limit` bytes. There is no telling which request an unread line answers, so the session ends:
`on_fault` hears why first, the calls in flight fail, and the supervisor restarts the server.
Spawning and shutdown (close stdin, wait, kill the process group) are the SDK's own.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TextIO

import anyio
import anyio.lowlevel
import mcp_types as types
from mcp import StdioServerParameters
from mcp.client.stdio import (
    _create_platform_compatible_process,
    _drain_stdout,
    _stop_server_process,
    get_default_environment,
)
from mcp.shared.message import SessionMessage

MAX_MESSAGE_BYTES = 16 * 1024 * 1024
"""One message from a server, as the daemon's own clients are bounded (a WebSocket frame)."""
_WRITER_FLUSH_S = 0.5


def too_large(limit: int) -> str:
    return f"the MCP server sent a message larger than {limit // (1024 * 1024)} MiB; the connection was reset"


@asynccontextmanager
async def bounded_stdio_client(
    server: StdioServerParameters,
    on_fault: Callable[[str], None],
    limit: int = MAX_MESSAGE_BYTES,
    errlog: TextIO = sys.stderr,
) -> AsyncIterator[tuple[Any, Any]]:
    process = await _create_platform_compatible_process(
        command=server.command,
        args=server.args,
        env=get_default_environment() | (server.env or {}),
        errlog=errlog,
        cwd=server.cwd,
    )
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    writer_done = anyio.Event()

    async def stdout_reader() -> None:
        assert process.stdout is not None
        lines = _Lines(limit)
        try:
            async with read_writer:
                try:
                    async for chunk in process.stdout:
                        try:
                            complete = lines.feed(chunk)
                        except _TooLarge:
                            on_fault(too_large(limit))
                            # Closed before the drain below, so that the session sees the end.
                            return await read_writer.aclose()
                        for line in complete:
                            await read_writer.send(_parse(line))
                finally:
                    await _drain_stdout(process)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, ConnectionError):
            pass  # the session or our own shutdown closed a stream under the read

    async def stdin_writer() -> None:
        assert process.stdin is not None
        try:
            async with write_reader:
                async for session_message in write_reader:
                    data = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send((data + "\n").encode())
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_writer.aclose()
        finally:
            writer_done.set()

    async def shutdown() -> None:
        read_stream.close()
        write_stream.close()
        with anyio.move_on_after(_WRITER_FLUSH_S):
            await writer_done.wait()
        await _stop_server_process(process)
        for stream in (read_stream, write_stream, read_writer, write_reader):
            await stream.aclose()
        await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as tg:
        tg.start_soon(stdout_reader)
        tg.start_soon(stdin_writer)
        try:
            yield read_stream, write_stream
        finally:
            try:
                # Bounded inside: a cancelled caller must still stop the server process.
                with anyio.CancelScope(shield=True):
                    await shutdown()
            finally:
                # The shield holds against anyio's cancellation only: an asyncio `Task.cancel()`
                # (the daemon stopping its MCP servers) ends the shutdown mid-grace. The server must
                # die anyway, or the reader's drain waits on its stdout forever and so does exit.
                _kill_group(process.pid, process.returncode)
                tg.cancel_scope.cancel()


def _kill_group(pid: int, returncode: int | None) -> None:
    if returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        # The SDK starts the server in a session of its own: its group is its pid.
        os.killpg(pid, signal.SIGKILL)


class _TooLarge(Exception):
    pass


class _Lines:
    """Cuts the server's output into lines, holding at most `limit` bytes of the unfinished one."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._line = bytearray()

    def feed(self, chunk: bytes) -> list[bytes]:
        complete: list[bytes] = []
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            self._add(chunk[start:end])
            start = end + 1
            if self._line.strip():
                complete.append(bytes(self._line))
            self._line.clear()
        self._add(chunk[start:])
        return complete

    def _add(self, data: bytes) -> None:
        if len(self._line) + len(data) > self._limit:
            raise _TooLarge
        self._line += data


def _parse(line: bytes) -> SessionMessage | Exception:
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:  # the session reports a malformed message; the stream goes on
        return exc
