"""structlog set-up: JSON lines to stderr; stdout belongs to the protocol.

A log write must never block or break the daemon: the process that spawned us may stop reading
stderr, or close it, at any moment (a terminal closed under a TUI, an SDK application killed).
Lines are written straight to fd 2, non-blocking when it is a pipe or socket; a line the reader
has no room for is dropped, and once stderr is gone for good (EPIPE, EBADF) logging goes quiet.
"""

from __future__ import annotations

import fcntl
import logging
import os
import stat
from typing import Any

import structlog

_STDERR = 2


class _Stderr:
    """Best-effort writer to fd 2 (see the module docstring for why)."""

    def __init__(self) -> None:
        self.gone = False

    def make_non_blocking(self) -> None:
        try:
            mode = os.fstat(_STDERR).st_mode
            if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
                flags = fcntl.fcntl(_STDERR, fcntl.F_GETFL)
                fcntl.fcntl(_STDERR, fcntl.F_SETFL, flags | os.O_NONBLOCK)
        except OSError:
            self.gone = True

    def write(self, text: str) -> None:
        if self.gone:
            return
        view = memoryview(text.encode("utf-8", "replace"))
        try:
            while view:
                view = view[os.write(_STDERR, view) :]
        except BlockingIOError:
            return  # the reader is behind: lose this line rather than stall the event loop
        except OSError:
            self.gone = True


_stderr = _Stderr()


def write_stderr(text: str) -> None:
    """Write `text` to stderr without blocking or raising (banners, start-up errors)."""
    _stderr.write(text)


class _LineLogger:
    """A structlog logger whose every level writes one rendered line to stderr."""

    def msg(self, message: str) -> None:
        _stderr.write(message + "\n")

    log = debug = info = warn = warning = error = critical = exception = fatal = msg


def _logger_factory(*_args: Any) -> _LineLogger:
    return _LineLogger()


def configure(level: str = "info") -> None:
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        numeric = logging.INFO
    _stderr.make_non_blocking()
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=_logger_factory,
        cache_logger_on_first_use=True,
    )


def get(name: str) -> structlog.typing.FilteringBoundLogger:
    logger: structlog.typing.FilteringBoundLogger = structlog.get_logger(name)
    return logger
