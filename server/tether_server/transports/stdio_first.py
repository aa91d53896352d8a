"""Read stdin up to its first frame before the event loop exists, and hand what was read on.

Standard library only (no asyncio): the stdio front runs this while the daemon is still loading
(see `rpc.handshake`). Whatever it read, the first frame and any bytes behind it, goes to
`StdioStream` untouched, so the server sees the byte stream exactly as the client wrote it.
"""

from __future__ import annotations

import json
import os
import select
from collections.abc import Callable

from tether_server.transports.framing import LineFramer

_CHUNK = 1 << 16
_FIRST_FRAME_MAX = 1 << 20
"""A longer first line is not a plain `initialize`; the full server gets it as it comes."""


class Prefill:
    """Frames already read from stdin, the framer holding a partial line after them, and whether
    stdin reached EOF (then the stream must not be read again: a terminal would wait for more)."""

    __slots__ = ("eof", "framer", "frames")

    def __init__(self, frames: list[bytes], framer: LineFramer, eof: bool) -> None:
        self.frames = frames
        self.framer = framer
        self.eof = eof


def read_first_frame(fd: int, ready_fd: int, on_wait: Callable[[], None]) -> Prefill:
    """Read `fd` until one whole frame arrived, EOF, or `ready_fd` is readable (the full server is
    up and reads the rest itself).

    `on_wait` is called once, the first time nothing is there to read: whatever loads the server
    starts then, so that it does not compete for the CPU with a first frame already waiting.
    """
    framer = LineFramer()
    frames: list[bytes] = []
    taken = 0
    waiting = False
    while not frames and taken <= _FIRST_FRAME_MAX:
        readable, _, _ = select.select([fd, ready_fd], [], [], None if waiting else 0)
        if not readable:
            on_wait()
            waiting = True
            continue
        if ready_fd in readable:
            break
        try:
            chunk = os.read(fd, _CHUNK)
        except BlockingIOError:
            continue
        except OSError:  # stdin unusable: the stream finds out again and ends the connection
            break
        if not chunk:
            frames.extend(framer.eof())
            return Prefill(frames, framer, eof=True)
        taken += len(chunk)
        frames.extend(framer.feed(chunk))
    return Prefill(frames, framer, eof=False)


_WHILE_LOADING_MAX = 1 << 20
"""Beyond this much read ahead while loading, the front stops reading: the server reads the rest."""


def read_while_loading(prefill: Prefill, fd: int, ready_fd: int) -> None:
    """After the early answer: keep reading `fd` into `prefill` until `ready_fd` is readable (the
    server is up), stdin reaches EOF, or enough was read ahead.

    The loader takes hundreds of milliseconds; a client that closes stdin in that time (a script
    that checked the server and quit) must not wait for it to see the process gone.
    """
    taken = 0
    while not prefill.eof and taken <= _WHILE_LOADING_MAX:
        readable, _, _ = select.select([fd, ready_fd], [], [])
        if ready_fd in readable:
            return
        try:
            chunk = os.read(fd, _CHUNK)
        except BlockingIOError:
            continue
        except OSError:  # stdin unusable: the stream finds out again and ends the connection
            return
        if not chunk:
            prefill.frames.extend(prefill.framer.eof())
            prefill.eof = True
            return
        taken += len(chunk)
        prefill.frames.extend(prefill.framer.feed(chunk))


def awaits_an_answer(frame: bytes) -> bool:
    """Whether `frame` might be a request (or anything the server would answer). Only a frame that
    is surely a JSON object without an `id` (a notification) needs no answer."""
    try:
        message = json.loads(frame)
    except (ValueError, RecursionError):
        return True  # the server answers a parse error
    return not isinstance(message, dict) or "id" in message or "method" not in message
