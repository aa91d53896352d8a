"""The control socket: where it lives, binding it safely, and connecting to it.

`sun_path` holds at most 107 bytes, less than many home directories allow; a longer path is
reached through `/proc/self/fd/<dir fd>/<name>`, which the kernel resolves like the real path.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator
from pathlib import Path

from tether_server.errors import ConfigError

CONTROL_DIR = "app-server-control"
SOCKET_NAME = "app-server-control.sock"
_SUN_PATH_MAX = 107


def default_socket_path(home: Path) -> Path:
    """`$TETHER_HOME/app-server-control/app-server-control.sock`."""
    return home / CONTROL_DIR / SOCKET_NAME


@contextlib.contextmanager
def _short_path(path: Path) -> Iterator[str]:
    if len(os.fsencode(path)) <= _SUN_PATH_MAX:
        yield str(path)
        return
    fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield f"/proc/self/fd/{fd}/{path.name}"
    finally:
        os.close(fd)


def connect(path: Path) -> socket.socket:
    """A connected (blocking) socket to `path`; raises OSError when nobody listens there."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        with _short_path(path) as address:
            sock.connect(address)
    except OSError:
        sock.close()
        raise
    return sock


def is_live(path: Path) -> bool:
    """Whether a server accepts connections on the socket at `path`."""
    try:
        connect(path).close()
    except OSError:
        return False
    return True


def bind(path: Path, *, default: bool) -> socket.socket:
    """A listening socket at `path`, mode 0600; a stale socket file is replaced, a live one refused.

    Raises:
        ConfigError: a server already listens there, or the path cannot be bound.
    """
    parent = path.parent
    parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if default:
        parent.chmod(0o700)
    if path.is_socket() or path.is_symlink():
        if is_live(path):
            raise ConfigError(f"app-server control socket is already in use at {path}", key="--listen")
        path.unlink()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)
    try:
        with _short_path(path) as address:
            sock.bind(address)
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {path}: {exc.strerror}", key="--listen") from exc
    finally:
        os.umask(old_umask)
    path.chmod(0o600)
    sock.listen(128)
    sock.setblocking(False)
    return sock
