"""A sans-I/O Server-Sent Events decoder: feed it bytes, get complete events back."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class SseEvent:
    """One dispatched event. `event` is "message" when the stream named none."""

    event: str
    data: str
    id: str | None = None


class SseDecoder:
    """Incremental decoder following the WHATWG event-stream grammar.

    Lines may end in LF, CRLF or CR and may be split anywhere across `feed` calls.
    Comment lines (starting with ':') are skipped; `data` lines of one event are joined
    with newlines; an event is dispatched at a blank line, and only if it has data.

    This runs for every streamed token. The input is cut into whole events (blocks ending in a
    blank line) first, and a block in the shape model streams send (`event: NAME` then one
    `data: VALUE` line) is taken apart with two slices. Any other block goes through the general
    line-by-line grammar. An incomplete block waits in `_tail` until its blank line arrives.
    """

    def __init__(self) -> None:
        self._tail = b""
        self._cr = False  # a chunk ended in CR: the first half of a CRLF, or a line end of its own
        self._event = b""
        self._data: list[bytes] = []
        self._id: str | None = None

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """Consume `chunk` and return the events it completed, in order."""
        return [
            SseEvent(
                name.decode("utf-8", errors="replace") if name else "message",
                data.decode("utf-8", errors="replace"),
                id_,
            )
            for name, data, id_ in self._feed(chunk)
        ]

    def feed_data(self, chunk: bytes) -> list[bytes]:
        """Consume `chunk` and return the data of the events it completed, undecoded: for a reader
        that goes by the data alone (the Responses API names each event again inside it)."""
        return [data for _, data, _ in self._feed(chunk)]

    def _feed(self, chunk: bytes) -> list[tuple[bytes, bytes, str | None]]:
        if self._cr:
            chunk, self._cr = b"\r" + chunk, False
        if chunk.endswith(b"\r"):
            chunk, self._cr = chunk[:-1], True
        if b"\r" in chunk:
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        blocks = (self._tail + chunk if self._tail else chunk).split(b"\n\n")
        self._tail = blocks.pop()
        events: list[tuple[bytes, bytes, str | None]] = []
        for block in blocks:
            if block.startswith(b"event: "):
                end = block.find(b"\n")
                if end > 0 and block.startswith(b"data: ", end + 1) and block.find(b"\n", end + 1) < 0:
                    events.append((block[7:end], block[end + 7 :], self._id))
                    continue
            self._block(block, events)
        return events

    def _block(self, block: bytes, events: list[tuple[bytes, bytes, str | None]]) -> None:
        """The general grammar for one block: its lines, then the blank line that ended it."""
        for line in block.split(b"\n"):
            if not line:
                self._blank(events)
            elif line.startswith(b"data:"):
                self._data.append(line[6:] if line[5:6] == b" " else line[5:])
            elif line.startswith(b"event:"):
                self._event = line[7:] if line[6:7] == b" " else line[6:]
            elif not line.startswith(b":"):
                self._other_field(line)
        self._blank(events)

    def _blank(self, events: list[tuple[bytes, bytes, str | None]]) -> None:
        if self._data:
            data = self._data[0] if len(self._data) == 1 else b"\n".join(self._data)
            events.append((self._event, data, self._id))
            self._data = []
        self._event = b""

    def _other_field(self, line: bytes) -> None:
        name, colon, value = line.partition(b":")
        if colon and value.startswith(b" "):
            value = value[1:]
        if name == b"data":  # a bare "data" line: an empty data value
            self._data.append(value)
        elif name == b"event":
            self._event = value
        elif name == b"id" and b"\0" not in value:
            self._id = value.decode("utf-8", errors="replace")
