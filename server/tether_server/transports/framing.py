"""Sans-I/O JSONL framing: bytes in, whole lines out."""

from __future__ import annotations


class LineTooLong(ValueError):
    pass


class LineFramer:
    """Splits a byte stream into `\\n`-terminated frames, bounded in length.

    A frame longer than `max_line` raises LineTooLong; the caller decides whether that ends the
    connection (it does: past that point the stream cannot be resynchronised cheaply).
    """

    def __init__(self, max_line: int = 64 * 1024 * 1024) -> None:
        self._buf = bytearray()
        self._max = max_line

    def feed(self, data: bytes) -> list[bytes]:
        self._buf += data
        out: list[bytes] = []
        start = 0
        while True:
            nl = self._buf.find(b"\n", start)
            if nl < 0:
                break
            line = bytes(self._buf[start:nl]).rstrip(b"\r")
            if line.strip():
                out.append(line)
            start = nl + 1
        del self._buf[:start]
        if len(self._buf) > self._max:
            raise LineTooLong(f"frame exceeds {self._max} bytes")
        return out

    def eof(self) -> list[bytes]:
        """The last line when the stream ends without a newline."""
        rest = bytes(self._buf).strip()
        self._buf.clear()
        return [rest] if rest else []
