"""Files read on the model's behalf: AGENTS.md, SKILL.md, `.gitignore`.

Whoever can write the project (the model through the sandbox, a cloned repository) decides what
these names are: a symlink to `/proc/self/environ` or `~/.ssh/id_ed25519` (files the sandbox
itself cannot read), a FIFO nobody writes to, a sparse file of half a gigabyte. So such a file is
opened without following a final symlink and without blocking (`O_NOFOLLOW | O_NONBLOCK`: opening
a FIFO returns at once), must be a regular file once open (`fstat`, whatever was swapped in after
the first look), must really sit where it was looked up (the descriptor's path, so a symlinked
folder on the way cannot lead out of the project), never in the daemon's own `/proc` entries nor
its private paths, and only the first `limit` bytes are read.

The blocking part runs on a small pool of its own with a deadline (`off_loop`): a file system that
hangs delays that read only, never the event loop nor the worker threads the rest of the daemon
uses. The pool's threads are daemon threads, so a read stuck in the kernel cannot hold up exit.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import queue
import stat
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC
DEFAULT_TIMEOUT_S = 10.0
_CHUNK = 64 * 1024


class Refused(Exception):
    """The file is there but is not read; the message says why, never what it holds."""


def own_proc_entry(path: str) -> bool:
    """`/proc/self`, `/proc/thread-self`, `/proc/<our pid>` or `/proc/<one of our thread ids>`."""
    parts = Path(path).parts
    if len(parts) < 3 or parts[:2] != ("/", "proc"):
        return False
    name = parts[2]
    if name in ("self", "thread-self"):
        return True
    return name.isdigit() and (int(name) == os.getpid() or os.path.exists(f"/proc/self/task/{name}"))


def read_prefix(
    path: Path,
    limit: int,
    *,
    root: Path,
    private: Sequence[Path] = (),
    contained: bool = True,
    follow_links: bool = False,
) -> bytes:
    """At most `limit` bytes from the start of the regular file `path`, looked up under `root`.

    Args:
        root: the folder the lookup started from. With `contained`, the file must really be inside
            it. A private path that holds `root` itself (`$TETHER_HOME` for its own AGENTS.md) is
            the user's choice and does not count.
        private: the daemon's private paths and the host paths the sandbox hides.
        follow_links: follow a final symlink (only where nobody but the user can plant one);
            the target is checked all the same.

    Raises:
        FileNotFoundError: nothing there (other `OSError`s: could not be read).
        Refused: a symlink, not a regular file, or a place it may not be read from.
    """
    info = os.stat(path) if follow_links else os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise Refused("a symbolic link")
    if not stat.S_ISREG(info.st_mode):
        raise Refused("not a regular file")
    fd = os.open(path, READ_FLAGS & ~os.O_NOFOLLOW if follow_links else READ_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Refused("not a regular file")
        reason = _misplaced(os.readlink(f"/proc/self/fd/{fd}"), root, private, contained)
        if reason is not None:
            raise Refused(reason)
        return _read_up_to(fd, limit)
    finally:
        os.close(fd)


def _misplaced(real: str, root: Path, private: Sequence[Path], contained: bool) -> str | None:
    if own_proc_entry(real):
        return "the server's own process information"
    target, base = Path(real), Path(os.path.realpath(root))
    if contained and not target.is_relative_to(base):
        return f"outside {root}"
    for path in private:
        owner = Path(os.path.realpath(path))
        if target.is_relative_to(owner) and not base.is_relative_to(owner):
            return "private to the server"
    return None


def _read_up_to(fd: int, limit: int) -> bytes:
    data = bytearray()
    while len(data) < limit:
        chunk = os.read(fd, min(_CHUNK, limit - len(data)))
        if not chunk:
            break
        data += chunk
    return bytes(data)


class Pool:
    """A fixed number of daemon worker threads, started on demand; work waits in a queue.

    Unlike the loop's default executor it is nobody else's: what is stuck here stays here.
    """

    def __init__(self, workers: int, name: str) -> None:
        self._workers, self._name = workers, name
        self._queue: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]]] = queue.SimpleQueue()
        self._started = self._idle = self._pending = 0
        self._lock = threading.Lock()

    def submit(self, fn: Callable[..., T], *args: object) -> Future[T]:
        future: Future[T] = Future()
        ctx = contextvars.copy_context()  # log bindings follow the work, as with asyncio.to_thread
        with self._lock:
            self._pending += 1
            if self._pending > self._idle and self._started < self._workers:
                self._started += 1
                name = f"{self._name}-{self._started}"
                threading.Thread(target=self._work, name=name, daemon=True).start()
        self._queue.put((future, lambda: ctx.run(fn, *args)))
        return future

    def _work(self) -> None:
        while True:
            with self._lock:
                self._idle += 1
            future, call = self._queue.get()
            with self._lock:
                self._idle -= 1
                self._pending -= 1
            if not future.set_running_or_notify_cancel():
                continue  # given up on while it waited
            try:
                future.set_result(call())
            except BaseException as exc:  # noqa: BLE001 - handed to whoever awaits the future
                future.set_exception(exc)


_pool = Pool(4, "tether-safe-read")


async def off_loop(fn: Callable[..., T], *args: object, deadline_s: float = DEFAULT_TIMEOUT_S) -> T:
    """`fn(*args)` on the safe-read pool; `TimeoutError` after `deadline_s` seconds (the work is then
    dropped if it has not started, or left to finish in its thread)."""
    return await asyncio.wait_for(asyncio.wrap_future(_pool.submit(fn, *args)), deadline_s)
