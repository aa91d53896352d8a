"""Follow the process that spawned a stdio server, so the server never outlives its client."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable

from tether_server import log

_log = log.get("tether.transports.parent")
_spawner = os.getppid()


def remember_spawner(pid: int | None = None) -> None:
    """Note the parent (`pid`, noted by the caller as early as it could, else now): it may exit
    before the server is up."""
    global _spawner
    _spawner = os.getppid() if pid is None else pid


class ParentWatch:
    """Calls back once the process that spawned a stdio server exits.

    Its pipes normally close with it and stdin EOF ends the server; but a pipe end it handed on to
    another process keeps stdin open, and a stdio server must not outlive the client that owns it.
    """

    def __init__(self, fd: int, on_exit: Callable[[], None]) -> None:
        self._fd = fd
        self._on_exit = on_exit
        asyncio.get_running_loop().add_reader(fd, self._fired)

    @classmethod
    def start(cls, on_exit: Callable[[], None]) -> ParentWatch | None:
        if _spawner <= 1:  # started by init: no client process to follow
            return None
        try:
            fd = os.pidfd_open(_spawner)
        except OSError:
            fd = -1
        if os.getppid() != _spawner:  # it has exited already; we were adopted
            if fd >= 0:
                os.close(fd)
            on_exit()
            return None
        return cls(fd, on_exit) if fd >= 0 else None

    def _fired(self) -> None:
        self.close()
        _log.info("server.parent_exited")
        self._on_exit()

    def close(self) -> None:
        if self._fd < 0:
            return
        asyncio.get_running_loop().remove_reader(self._fd)
        os.close(self._fd)
        self._fd = -1
