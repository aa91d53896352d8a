"""File work for clients (`fs/*`, `fuzzyFileSearch`): worker threads of its own, a few per connection.

Not the loop's default executor: the stdio transport reads its input there, and a file job stuck
for a while (a listing waiting on git) must not take the threads every other client needs. A
connection holds at most `per_connection` jobs; a slot is held until its thread is done, even when
the request was cancelled first (the thread cannot be stopped, and it still uses a worker).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar

from tether_server.errors import InternalError, Overloaded
from tether_server.rpc.dispatcher import OVERLOADED
from tether_server.safe_read import Pool

T = TypeVar("T")

MAX_FILE_JOBS_PER_CONNECTION = 4
FILE_WORKERS = 16


def os_error(exc: OSError) -> InternalError:
    """An I/O failure as Codex words it: `<strerror> (os error <errno>)`."""
    return InternalError(f"{exc.strerror} (os error {exc.errno})")


class FileJobs:
    """The file workers and each connection's share of them."""

    def __init__(
        self, per_connection: int = MAX_FILE_JOBS_PER_CONNECTION, workers: int = FILE_WORKERS
    ) -> None:
        self.per_connection = per_connection
        self._jobs: Counter[int] = Counter()
        self._pool = Pool(workers, "tether-fs")

    def held(self, conn_id: int) -> int:
        """How many slots `conn_id` holds (jobs whose threads have not finished)."""
        return self._jobs[conn_id]

    async def run(
        self,
        conn_id: int,
        fn: Callable[..., T],
        *args: object,
        abandoned: Callable[[T], object] | None = None,
    ) -> T:
        """Run `fn(*args)` under `conn_id`'s cap; OSError becomes `os_error`. A result nobody waits
        for any more (the request was cancelled) is handed to `abandoned` (to close what it holds)."""
        if self._jobs[conn_id] >= self.per_connection:
            raise Overloaded(OVERLOADED, data={"scope": "fs", "limit": self.per_connection})
        self._jobs[conn_id] += 1
        work: asyncio.Future[T] = asyncio.wrap_future(self._pool.submit(fn, *args))
        work.add_done_callback(lambda f: self._release(conn_id, f))
        try:
            return await asyncio.shield(work)
        except OSError as exc:
            raise os_error(exc) from None
        except asyncio.CancelledError:
            if abandoned is not None:
                work.add_done_callback(lambda f: _hand_over(f, abandoned))
            raise

    def _release(self, conn_id: int, work: asyncio.Future[Any]) -> None:
        self._jobs[conn_id] -= 1
        if self._jobs[conn_id] <= 0:
            del self._jobs[conn_id]
        if not work.cancelled():
            work.exception()  # retrieved here when the request was cancelled before it


def _hand_over(work: asyncio.Future[T], abandoned: Callable[[T], object]) -> None:
    if not work.cancelled() and work.exception() is None:
        abandoned(work.result())
