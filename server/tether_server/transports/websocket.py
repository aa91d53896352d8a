"""WebSocket connections (TCP or the control socket) as FrameStreams: one JSON-RPC message a text frame."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode

from tether_server import log
from tether_server.transports.base import FrameStream

_log = log.get("tether.transport")

CLOSE_GRACE_S = 5.0
_CLOSE_CODES = {
    "": CloseCode.NORMAL_CLOSURE,
    "peer closed": CloseCode.NORMAL_CLOSURE,
    "server stopping": CloseCode.GOING_AWAY,
}


class WebSocketStream(FrameStream):
    """Adapts a websockets server connection to a FrameStream.

    Binary frames are not JSON-RPC messages: they are dropped with a log line, as Codex does.
    """

    def __init__(self, ws: ServerConnection, label: str) -> None:
        self._ws = ws
        self.label = label
        self._sending = False

    @property
    def stalled(self) -> bool:
        """Whether a send is waiting for the peer to read: the transport's buffer is full."""
        return self._sending

    async def frames(self) -> AsyncIterator[bytes]:
        try:
            async for message in self._ws:
                if isinstance(message, str):
                    yield message.encode()
                else:
                    _log.warning("websocket.binary_dropped", transport=self.label, size=len(message))
        except ConnectionClosed:
            return

    async def send(self, frame: bytes) -> None:
        self._sending = True
        try:
            await self._ws.send(frame, text=True)
        except ConnectionClosed as exc:
            raise ConnectionError(str(exc)) from exc
        finally:
            self._sending = False

    async def send_batch(self, frames: list[bytes]) -> None:
        """Several text messages written with one socket write (what `send` does, once per batch).

        `send_context` is websockets' documented way to write frames from user code; the writer
        task is this connection's only data sender, so frames cannot interleave with another
        message's fragments. Without an extension (compression), a server's text frame is a fixed
        header and the payload as is, so the frames are built here and written straight to the
        transport: the protocol object's per-frame work is most of a notification's cost when
        many clients watch one thread. With an extension, the protocol frames each message.
        """
        self._sending = True
        try:
            async with self._ws.send_context():
                protocol = self._ws.protocol
                if protocol.extensions:
                    for frame in frames:
                        protocol.send_text(frame)
                else:
                    self._ws.transport.write(_text_frames(frames))
        except ConnectionClosed as exc:
            raise ConnectionError(str(exc)) from exc
        finally:
            self._sending = False

    async def close(self, reason: str = "") -> None:
        code = _CLOSE_CODES.get(reason, CloseCode.POLICY_VIOLATION)
        try:
            async with asyncio.timeout(CLOSE_GRACE_S):
                await self._ws.close(code, reason[:120])
        except TimeoutError:
            self.abort()

    def abort(self) -> None:
        """Drop the connection at once (a peer that does not read cannot receive a close frame)."""
        self._ws.transport.abort()


def _text_frames(payloads: list[bytes]) -> bytes:
    """Unmasked, final text frames (RFC 6455 §5.2), as a server sends them, one after another."""
    parts: list[bytes] = []
    for payload in payloads:
        size = len(payload)
        if size < 126:
            parts.append(bytes((0x81, size)))
        elif size < 65536:
            parts.append(b"\x81\x7e" + size.to_bytes(2, "big"))
        else:
            parts.append(b"\x81\x7f" + size.to_bytes(8, "big"))
        parts.append(payload)
    return b"".join(parts)
