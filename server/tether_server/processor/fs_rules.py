"""The path rules every `fs/*` method and the fuzzy file search share.

The `fs/*` methods reach the daemon's host (not sandboxed by thread policy, like Codex), but they
stop at the daemon itself: never its own `/proc` entries (`/proc/self/environ` holds the provider
key) nor its private files (`$TETHER_HOME`: the database, sockets, tokens; the host paths the
sandbox hides). A path is checked after
resolving its symlinks, so a link planted elsewhere cannot lead into them, and a tree operation
(remove, copy) is refused when the tree holds a private path. File work runs in worker threads shared
by every client (a pool of their own), so one connection may hold only a few at a time.
"""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from tether_server.errors import InternalError, InvalidParams, InvalidRequest, Overloaded
from tether_server.processor.state import ServerState
from tether_server.rpc.dispatcher import OVERLOADED
from tether_server.safe_read import Pool, own_proc_entry

T = TypeVar("T")

MAX_FILE_JOBS_PER_CONNECTION = 4
# Not the loop's default executor: the stdio transport reads its input there, and a file job stuck
# for a while (a listing waiting on git) must not take the threads every other client needs.
FILE_WORKERS = 16
_jobs: Counter[int] = Counter()
_pool = Pool(FILE_WORKERS, "tether-fs")


def private_paths(state: ServerState) -> list[Path]:
    """The daemon's private paths (`$TETHER_HOME` and the host's hidden paths), resolved."""
    return [p.resolve() for p in state.private_paths]


def absolute(raw: str) -> str:
    """`raw` as a client path: no NUL byte, absolute (Codex's wording for a relative one)."""
    if "\0" in raw:
        raise InvalidParams("Invalid params: path contains a NUL byte")
    if not os.path.isabs(raw):
        raise InvalidRequest("Invalid request: AbsolutePathBuf deserialized without a base path")
    return os.path.normpath(raw)


def refusal(path: str, private: list[Path], *, tree: bool = False) -> str | None:
    """Why `path` (already resolved) is off limits, or None; `tree` also refuses a path that
    contains a private one (removing or copying it would reach the private files)."""
    if own_proc_entry(path):
        return f"access denied: {path} is the server's own process information"
    target = Path(path)
    for p in private:
        if target.is_relative_to(p) or (tree and p.is_relative_to(target)):
            return f"access denied: {path} is private to the server"
    return None


def check(path: str, private: list[Path], *, tree: bool = False) -> None:
    """Raise `InvalidRequest` when `path` (already resolved) is off limits."""
    reason = refusal(path, private, tree=tree)
    if reason is not None:
        raise InvalidRequest(reason)


def resolved(path: str, private: list[Path], *, tree: bool = False) -> str:
    """`path` with every symlink resolved (missing tails kept as written), checked."""
    real = os.path.realpath(path)
    check(real, private, tree=tree)
    return real


def resolved_parent(path: str, private: list[Path], *, tree: bool = False) -> str:
    """`path` with its parent resolved but its last component kept: a symlink there is the entry
    itself (removed, replaced), never followed. Checked both ways."""
    parent, name = os.path.split(path)
    if not name:
        raise InvalidRequest(f"refusing to operate on the root directory: {path}")
    real = os.path.join(os.path.realpath(parent), name)
    check(real, private, tree=tree)
    return real


def check_fd(fd: int, private: list[Path]) -> None:
    """Check what an open descriptor really is (whatever was swapped in after the path check)."""
    check(os.readlink(f"/proc/self/fd/{fd}"), private)


def os_error(exc: OSError) -> InternalError:
    """An I/O failure as Codex words it: `<strerror> (os error <errno>)`."""
    return InternalError(f"{exc.strerror} (os error {exc.errno})")


def _release(conn_id: int, work: asyncio.Future[Any]) -> None:
    _jobs[conn_id] -= 1
    if _jobs[conn_id] <= 0:
        del _jobs[conn_id]
    if not work.cancelled():
        work.exception()  # retrieved here when the request was cancelled before it


async def run_job(
    conn_id: int, fn: Callable[..., T], *args: object, abandoned: Callable[[T], object] | None = None
) -> T:
    """Run `fn(*args)` on the file pool under `conn_id`'s cap; OSError becomes `os_error`.

    The slot is held until the thread is done, even when the request is cancelled first; a result
    nobody waits for any more is handed to `abandoned` (to close what it holds).
    """
    if _jobs[conn_id] >= MAX_FILE_JOBS_PER_CONNECTION:
        raise Overloaded(OVERLOADED, data={"scope": "fs", "limit": MAX_FILE_JOBS_PER_CONNECTION})
    _jobs[conn_id] += 1
    work: asyncio.Future[T] = asyncio.wrap_future(_pool.submit(fn, *args))
    work.add_done_callback(lambda f: _release(conn_id, f))
    try:
        return await asyncio.shield(work)
    except OSError as exc:
        raise os_error(exc) from None
    except asyncio.CancelledError:
        if abandoned is not None:
            work.add_done_callback(lambda f: _hand_over(f, abandoned))
        raise


def _hand_over(work: asyncio.Future[T], abandoned: Callable[[T], object]) -> None:
    if not work.cancelled() and work.exception() is None:
        abandoned(work.result())
