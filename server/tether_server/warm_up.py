"""What the first turn would otherwise load while its user waits, loaded once the daemon serves.

The model provider (httpx, its transports, TLS set-up) stays off the start-up path so that
`initialize` and `thread/start` are answered fast; but a client that opens a thread starts a turn
next, and importing it then puts ~100 ms into that turn's first delta. A background thread loads it
when the first thread is opened (not at start: a daemon that only serves files or commands never
needs it). A turn that comes first waits for the same import without blocking the event loop
(`providers.deferred`).
"""

from __future__ import annotations

import threading

from tether_server import log
from tether_server.providers.deferred import load_responses

_log = log.get(__name__)
_started = threading.Event()


def start_once() -> None:
    """Begin loading the provider in a daemon thread (it must never hold up an exit), the first time."""
    if _started.is_set():
        return
    _started.set()
    threading.Thread(target=_load, name="tether-warm-up", daemon=True).start()


def _load() -> None:
    try:
        load_responses()
    except ImportError as exc:  # the turn that needs it imports it again and reports it
        _log.warning("warm_up.failed", error=str(exc))
