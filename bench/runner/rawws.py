"""A lean WebSocket client for the fan-out workload (RFC 6455, client side, no extensions).

W8 puts ten clients in the benchmark's own process; with the websockets library each received
message costs its frame parser and a text decode before the JSON, and ten clients reading
thousands of notifications each became what W8 measured. This client reads frames straight out
of the socket's bytes and hands each payload to the JSON parser; it sends (masked) frames for the
few requests it makes and answers pings.
"""

from __future__ import annotations

import asyncio
import base64
import os
from typing import Any

_TEXT, _BINARY, _CLOSE, _PING, _PONG, _CONTINUATION = 0x1, 0x2, 0x8, 0x9, 0xA, 0x0
_READ_CHUNK = 1 << 18


class HandshakeFailed(OSError):
    """The server did not switch protocols."""


def mask(payload: bytes, key: bytes) -> bytes:
    """XOR `payload` with the repeated 4-byte `key` (RFC 6455 §5.3)."""
    size = len(payload)
    repeated = (key * (size // 4 + 1))[:size]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(size, "big")


def client_frame(opcode: int, payload: bytes) -> bytes:
    """One final, masked frame."""
    size = len(payload)
    if size < 126:
        head = bytes((0x80 | opcode, 0x80 | size))
    elif size < 65536:
        head = bytes((0x80 | opcode, 0x80 | 126)) + size.to_bytes(2, "big")
    else:
        head = bytes((0x80 | opcode, 0x80 | 127)) + size.to_bytes(8, "big")
    key = os.urandom(4)
    return head + key + mask(payload, key)


class FrameReader:
    """Sans-I/O: bytes in, (opcode, payload) of whole messages out; continuation frames joined."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._fragments: list[bytes] = []
        self._fragment_opcode = 0

    def feed(self, data: bytes) -> list[tuple[int, bytes]]:
        buffer = self._buffer
        buffer += data
        messages: list[tuple[int, bytes]] = []
        start, end = 0, len(buffer)
        while end - start >= 2:
            first, second = buffer[start], buffer[start + 1]
            size, offset = second & 0x7F, start + 2
            if size == 126:
                if end - offset < 2:
                    break
                size, offset = int.from_bytes(buffer[offset : offset + 2], "big"), offset + 2
            elif size == 127:
                if end - offset < 8:
                    break
                size, offset = int.from_bytes(buffer[offset : offset + 8], "big"), offset + 8
            if second & 0x80:  # a server never masks; tolerated all the same
                offset += 4
            if end - offset < size:
                break
            payload = bytes(buffer[offset : offset + size])
            if second & 0x80:
                payload = mask(payload, bytes(buffer[offset - 4 : offset]))
            start = offset + size
            self._frame(first, payload, messages)
        del buffer[:start]
        return messages

    def _frame(self, first: int, payload: bytes, messages: list[tuple[int, bytes]]) -> None:
        fin, opcode = first & 0x80, first & 0x0F
        if opcode == _CONTINUATION:
            self._fragments.append(payload)
            if fin:
                messages.append((self._fragment_opcode, b"".join(self._fragments)))
                self._fragments = []
        elif fin or opcode >= _CLOSE:
            messages.append((opcode, payload))
        else:
            self._fragment_opcode, self._fragments = opcode, [payload]


async def open_websocket(listen: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, bytes]:
    """Connect to ``ws://HOST:PORT`` or ``unix://PATH`` and upgrade; returns the bytes read past it."""
    if listen.startswith("unix://"):
        reader, writer = await asyncio.open_unix_connection(listen.removeprefix("unix://"), limit=1 << 20)
        host = "localhost"
    else:
        host = listen.removeprefix("ws://").split("/", 1)[0]
        name, port = host.rsplit(":", 1)
        reader, writer = await asyncio.open_connection(name, int(port), limit=1 << 20)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        (
            f"GET /rpc HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith((b"HTTP/1.1 101", b"HTTP/1.0 101")):
        writer.close()
        raise HandshakeFailed(head.split(b"\r\n", 1)[0].decode(errors="replace"))
    return reader, writer, b""


def describe(opcode: int, payload: bytes) -> dict[str, Any]:
    """A close frame's code and reason, for errors."""
    code = int.from_bytes(payload[:2], "big") if opcode == _CLOSE and len(payload) >= 2 else None
    return {"code": code, "reason": payload[2:].decode(errors="replace")}


__all__ = ["FrameReader", "HandshakeFailed", "client_frame", "describe", "open_websocket"]
