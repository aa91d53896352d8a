"""What the first turn would otherwise load while its user waits.

The model provider (httpx2, its transports, TLS set-up) is not needed to answer `initialize` or
`thread/start`, and importing it in the first turn puts ~100 ms into that turn's first delta. It
loads in a background thread when the first thread is opened, once the request that opened it
is done (`start_after_request`): after the daemon is up, so that a client's first `thread/start`
does not wait for it (issue 31), and usually done before that client's first turn. A turn that
comes first waits for the same import without blocking the event loop (`providers.deferred`).
"""

from __future__ import annotations

import asyncio
import threading

from tether_server import log
from tether_server.providers.deferred import load_responses, responses_loaded

_log = log.get(__name__)
_started = threading.Event()


def start_once() -> None:
    """Begin loading the provider in a daemon thread (it must never hold up an exit), the first time."""
    if _started.is_set() or responses_loaded():
        return
    _started.set()
    threading.Thread(target=_load, name="tether-warm-up", daemon=True).start()


def start_after_request() -> None:
    """`start_once` when the running request is done, or now outside one: the import does not
    share the interpreter with the request's answer (a long history's resume took ~30% longer)."""
    request = asyncio.current_task()
    if request is None:
        start_once()
    else:
        request.add_done_callback(lambda _: start_once())


def _load() -> None:
    try:
        load_responses()
    except ImportError as exc:  # the turn that needs it imports it again and reports it
        _log.warning("warm_up.failed", error=str(exc))
