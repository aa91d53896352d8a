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

    Lines are examined as bytes and only the field values are decoded: this runs for every
    streamed token, and `data:` and `event:` lines are checked first because they are nearly all
    a model stream holds.
    """

    def __init__(self) -> None:
        self._pending = b""
        self._event = b""
        self._data: list[bytes] = []
        self._id: str | None = None

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """Consume `chunk` and return the events it completed, in order."""
        buffer = self._pending + chunk if self._pending else chunk
        # A trailing CR may be the first half of a CRLF split across chunks: keep it back.
        if buffer.endswith(b"\r"):
            buffer, self._pending = buffer[:-1], b"\r"
        else:
            self._pending = b""
        if b"\r" in buffer:
            buffer = buffer.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        *lines, rest = buffer.split(b"\n")
        self._pending = rest + self._pending
        events: list[SseEvent] = []
        data = self._data
        for line in lines:
            if not line:
                if data:
                    events.append(self._dispatch())
                    data = self._data
                else:
                    self._event = b""
            elif line.startswith(b"data:"):
                data.append(line[6:] if line[5:6] == b" " else line[5:])
            elif line.startswith(b"event:"):
                self._event = line[7:] if line[6:7] == b" " else line[6:]
            elif not line.startswith(b":"):
                self._other_field(line)
        return events

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

    def _dispatch(self) -> SseEvent:
        data = self._data[0] if len(self._data) == 1 else b"\n".join(self._data)
        name = self._event.decode("utf-8", errors="replace") if self._event else "message"
        event = SseEvent(name, data.decode("utf-8", errors="replace"), self._id)
        self._event, self._data = b"", []
        return event
