"""A sans-I/O Server-Sent Events decoder: feed it bytes, get complete events back."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
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
    """

    def __init__(self) -> None:
        self._pending = b""
        self._event = ""
        self._data: list[str] = []
        self._id: str | None = None

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """Consume `chunk` and return the events it completed, in order."""
        buffer = self._pending + chunk
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
        for line in lines:
            event = self._line(line.decode("utf-8", errors="replace"))
            if event is not None:
                events.append(event)
        return events

    def _line(self, line: str) -> SseEvent | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._id = value
        return None

    def _dispatch(self) -> SseEvent | None:
        if not self._data:
            self._event = ""
            return None
        event = SseEvent(self._event or "message", "\n".join(self._data), self._id)
        self._event, self._data = "", []
        return event
