"""What the first turn would otherwise load while its user waits, loaded once the daemon serves.

The model provider (httpx, its transports, TLS set-up) stays off the start-up path so that
`initialize` and `thread/start` are answered fast; but a client that opens a thread starts a turn
next, and importing it then puts ~100 ms into that turn's first delta. A background thread loads it
when the first thread is opened (not at start: a daemon that only serves files or commands never
needs it); the import lock makes a turn that comes first wait for the same import rather than run
it twice.
"""

from __future__ import annotations

import importlib
import threading

from tether_server import log

_log = log.get(__name__)
MODULES = (
    "tether_server.providers.responses",
    # What httpx's first connection loads on demand (names of the libraries' own modules: a name
    # a later release drops is skipped, and then loads, if at all, in the turn as before).
    "httpcore",
    "httpcore._backends.anyio",
    "anyio._core._sockets",
    "anyio._core._streams",
    "anyio._core._tasks",
    "anyio.lowlevel",
    "anyio.streams.stapled",
    "anyio.streams.tls",
)


_started = threading.Event()


def start_once() -> None:
    """Begin loading `MODULES` in a daemon thread (it must never hold up an exit), the first time."""
    if _started.is_set():
        return
    _started.set()
    threading.Thread(target=_load, name="tether-warm-up", daemon=True).start()


def _load() -> None:
    for name in MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError:
            _log.debug("warm_up.missing", module=name)
        except ImportError as exc:  # the turn that needs it imports it again and reports it
            _log.warning("warm_up.failed", module=name, error=str(exc))
