"""WebSocket transport: `ws://`/`wss://` URLs and the daemon's unix control socket.

The daemon speaks the same JSON-RPC over WebSocket text frames, one message per frame; the unix
control socket carries a WebSocket too. Browsers are refused by the server (Origin), so no
Origin header is ever sent.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import AsyncIterator
from pathlib import Path

from websockets.asyncio.client import ClientConnection, connect, unix_connect
from websockets.exceptions import ConnectionClosed

from tether_client.errors import TransportClosed

_MAX_MESSAGE = 64 * 1024 * 1024
_SUN_PATH_MAX = 107


class WebSocketTransport:
    """One WebSocket connection to a running `tether app-server --listen ws://…|unix://…`."""

    def __init__(self, ws: ClientConnection) -> None:
        self._ws = ws

    @classmethod
    async def connect(cls, url: str, *, token: str | None = None) -> WebSocketTransport:
        """Connect to `ws://host:port` or `wss://host:port`.

        Args:
            url: the listener's URL as printed by the server (`listening on: ws://…`).
            token: a capability token or signed bearer token, sent as `Authorization: Bearer`.
        """
        ws = await connect(url, additional_headers=_auth(token), max_size=_MAX_MESSAGE, compression=None)
        return cls(ws)

    @classmethod
    async def connect_unix(cls, path: str | Path, *, token: str | None = None) -> WebSocketTransport:
        """Connect to the daemon's control socket at `path`."""
        sock = _unix_socket(Path(path))
        ws = await unix_connect(
            sock=sock, uri="ws://localhost/", additional_headers=_auth(token), max_size=_MAX_MESSAGE
        )
        return cls(ws)

    async def send(self, frame: bytes) -> None:
        try:
            await self._ws.send(frame.decode(), text=True)
        except ConnectionClosed as exc:
            raise TransportClosed(str(exc)) from exc

    async def frames(self) -> AsyncIterator[bytes]:
        with contextlib.suppress(ConnectionClosed):
            async for message in self._ws:
                yield message.encode() if isinstance(message, str) else message

    async def close(self) -> None:
        await self._ws.close()


def default_socket_path() -> Path:
    """The daemon's control socket: `$TETHER_HOME/app-server-control/app-server-control.sock`."""
    home = Path(os.environ.get("TETHER_HOME") or Path.home() / ".tether")
    return home / "app-server-control" / "app-server-control.sock"


def _unix_socket(path: Path) -> socket.socket:
    """A connected socket to `path`, even past `sun_path`'s 107 bytes (via /proc/self/fd/<dir>)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        if len(os.fsencode(path)) <= _SUN_PATH_MAX:
            sock.connect(str(path))
        else:
            fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
            try:
                sock.connect(f"/proc/self/fd/{fd}/{path.name}")
            finally:
                os.close(fd)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def _auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}
