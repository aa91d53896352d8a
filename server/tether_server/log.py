"""structlog set-up: readable lines on a terminal, JSON lines otherwise; stdout belongs to the protocol.

A log write must never block or break the daemon: the process that spawned us may stop reading
stderr, or close it, at any moment (a terminal closed under a TUI, an SDK application killed).
Lines are written straight to fd 2, non-blocking when it is a pipe or socket; a line the reader
has no room for is dropped, and once stderr is gone for good (EPIPE, EBADF) logging goes quiet.

What is logged: `TETHER_LOG` holds comma-separated filters, a bare level for everything and
`module=level` for a module and the modules under it (the longest match wins):
`TETHER_LOG=info,tether_server.store=debug`. `--log-level` sets the bare level when given. Every
line names its module (`logger`), and the dispatcher binds `request_id`, `method`,
`connection_id` and `thread_id` for all the work a request does (tasks it starts inherit them).

How it looks: structlog's console rendering when stderr is a terminal, JSON otherwise;
`TETHER_LOG_FORMAT=json|console` overrides, `NO_COLOR` turns colours off.
"""

from __future__ import annotations

import fcntl
import logging
import os
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# structlog loads rich for pretty tracebacks when it is installed (the TUI brings it); the daemon
# renders plain tracebacks, and rich would add a tenth to every start. Hidden while structlog loads.
_RICH_HIDDEN = sys.modules.setdefault("rich", None) is None  # type: ignore[arg-type]
import structlog  # noqa: E402
from structlog.typing import EventDict, Processor, WrappedLogger  # noqa: E402

from tether_server import telemetry  # noqa: E402 - it loads structlog too

if _RICH_HIDDEN:
    del sys.modules["rich"]

_STDERR = 2
LEVELS: dict[str, int] = {"debug": 10, "info": 20, "warning": 30, "error": 40, "critical": 50, "off": 100}
_ALIASES = {"warn": "warning", "trace": "debug", "fatal": "critical"}
# structlog method name → the level it logs at.
_METHOD_LEVEL = {**LEVELS, "warn": 30, "exception": 40, "fatal": 50, "msg": 20, "log": 20}


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
    """A structlog logger whose every level writes one rendered line to stderr; `name` is its module."""

    def __init__(self, name: str) -> None:
        self.name = name

    def msg(self, message: str) -> None:
        _stderr.write(message + "\n")

    log = debug = info = warn = warning = error = critical = exception = fatal = msg


def _logger_factory(*args: Any) -> _LineLogger:
    return _LineLogger(str(args[0]) if args else "")


def _add_logger_name(logger: WrappedLogger, _method: str, event: EventDict) -> EventDict:
    event.setdefault("logger", getattr(logger, "name", ""))
    return event


def level_number(name: str) -> int | None:
    """The numeric level of a level name (`warn` and `trace` accepted), or None."""
    key = name.strip().lower()
    return LEVELS.get(_ALIASES.get(key, key))


@dataclass
class LogFilter:
    """A parsed `TETHER_LOG`: the default level, per-module levels, and entries it could not read."""

    default: int = LEVELS["info"]
    modules: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    _cache: dict[str, int] = field(default_factory=dict, repr=False)

    @classmethod
    def parse(cls, spec: str, level: str | None = None) -> LogFilter:
        """Parse `spec` (`info,tether_server.store=debug`); `level`, when given, sets the default."""
        parsed = cls()
        for entry in filter(None, (part.strip() for part in spec.split(","))):
            module, _, name = entry.rpartition("=")
            number = level_number(name)
            if number is None:
                parsed.problems.append(entry)
            elif module:
                parsed.modules[module.strip()] = number
            else:
                parsed.default = number
        if level is not None:
            parsed.default = level_number(level) or LEVELS["info"]
        return parsed

    @property
    def lowest(self) -> int:
        """The lowest level any module logs at (cheaper calls below it are skipped outright)."""
        return min([self.default, *self.modules.values()])

    def threshold(self, logger: str) -> int:
        """The level `logger` (a module path) logs at: its longest configured prefix, else the default."""
        found = self._cache.get(logger)
        if found is None:
            matches = [m for m in self.modules if logger == m or logger.startswith(m + ".")]
            found = self.modules[max(matches, key=len)] if matches else self.default
            self._cache[logger] = found
        return found

    def __call__(self, logger: WrappedLogger, method: str, event: EventDict) -> EventDict:
        if _METHOD_LEVEL.get(method, 20) < self.threshold(getattr(logger, "name", "")):
            raise structlog.DropEvent
        return event


def wants_console(environ: Mapping[str, str]) -> bool:
    """Console rendering: asked for by `TETHER_LOG_FORMAT`, else when stderr is a terminal."""
    chosen = environ.get("TETHER_LOG_FORMAT", "").strip().lower()
    if chosen in ("json", "console"):
        return chosen == "console"
    try:
        return os.isatty(_STDERR)
    except OSError:
        return False


# C0 controls, DEL and the C1 range (an 8-bit CSI is a terminal escape too), as `\xNN`.
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))}
_CONTROLS_BUT_NEWLINE = {c: e for c, e in _CONTROLS.items() if c != ord("\n")}


def _escape_controls(_logger: WrappedLogger, _method: str, event: EventDict) -> EventDict:
    """Console lines carry strings from clients and the model (method names, ids, paths): their
    control characters are escaped, so they cannot drive the operator's terminal (clear it, retitle
    it) nor start a forged line. A traceback keeps its line breaks."""
    for key, value in event.items():
        if isinstance(value, str):
            event[key] = value.translate(_CONTROLS_BUT_NEWLINE if key == "exception" else _CONTROLS)
    return event


def _renderer(console: bool, environ: Mapping[str, str]) -> list[Processor]:
    if not console:
        return [structlog.processors.format_exc_info, structlog.processors.JSONRenderer()]
    colors = not environ.get("NO_COLOR")
    return [
        structlog.processors.format_exc_info,  # the traceback as text, escaped like the rest
        _escape_controls,
        structlog.dev.ConsoleRenderer(colors=colors, exception_formatter=structlog.dev.plain_traceback),
    ]


class _StdlibBridge(logging.Handler):
    """Lines from the standard library's logging (asyncio, websockets, httpx) take the same filter,
    renderer and non-blocking writer, so stderr stays in one format."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            logger = structlog.get_logger(record.name)
            method = record.levelname.lower() if record.levelname.lower() in LEVELS else "warning"
            extra: dict[str, Any] = {"exc_info": record.exc_info} if record.exc_info else {}
            getattr(logger, method)(record.getMessage(), **extra)
        except Exception:  # noqa: BLE001 - a log line must never break the daemon
            return


def configure(level: str | None = None, environ: Mapping[str, str] | None = None) -> None:
    """Set up logging from `TETHER_LOG` / `TETHER_LOG_FORMAT` and `--log-level` (`level`)."""
    env = os.environ if environ is None else environ
    filters = LogFilter.parse(env.get("TETHER_LOG", ""), level)
    _stderr.make_non_blocking()
    structlog.configure(
        processors=[
            filters,
            _add_logger_name,
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            telemetry.export_log,
            *_renderer(wants_console(env), env),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(min(filters.lowest, LEVELS["critical"])),
        logger_factory=_logger_factory,
        cache_logger_on_first_use=True,
    )
    root = logging.getLogger()
    root.handlers = [_StdlibBridge()]
    root.setLevel(logging.WARNING)  # libraries' info and debug chatter is not ours to show
    for entry in filters.problems:
        get("tether_server.log").warning("log.filter_ignored", entry=entry, levels=sorted(LEVELS))


def get(name: str | None = None) -> structlog.typing.FilteringBoundLogger:
    """The logger of the calling module; its lines carry `logger=<module path>`.

    `name` is kept for older call sites, but the caller's module path wins, so that `TETHER_LOG`
    filters always match the source tree (`tether_server.store`, not an ad-hoc label).
    """
    caller = sys._getframe(1).f_globals.get("__name__", "")
    module = caller if caller and caller != "__main__" else (name or "tether")
    logger: structlog.typing.FilteringBoundLogger = structlog.get_logger(module)
    return logger


def bind(**values: Any) -> None:
    """Bind `values` to every line logged by the current task and the tasks it starts."""
    structlog.contextvars.bind_contextvars(**values)
