"""WebSocket transport: `ws://`/`wss://` URLs and the daemon's unix control socket.

The daemon speaks the same JSON-RPC over WebSocket text frames, one message per frame; the unix
control socket carries a WebSocket too. Browsers are refused by the server (Origin), so no
Origin header is ever sent.

A TCP listener always wants a bearer token; unless told otherwise, the daemon generates one into
`$TETHER_HOME/ws-token`, which a client on the same machine reads when given none. A token bound
for a loopback URL is sent only once the kernel has shown that the listener is ours (or root's):
while the daemon is down, another local user could be holding its port.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect, unix_connect
from websockets.exceptions import ConnectionClosed

from tether_client.errors import TransportClosed
from tether_client.listener_owner import check_listener

_MAX_MESSAGE = 64 * 1024 * 1024
_SUN_PATH_MAX = 107
_CONNECT_TIMEOUT_S = 10.0  # websockets' own open timeout, for the connection opened here
TOKEN_FILE = "ws-token"


class WebSocketTransport:
    """One WebSocket connection to a running `tether app-server --listen ws://…|unix://…`."""

    def __init__(self, ws: ClientConnection) -> None:
        self._ws = ws

    @classmethod
    async def connect(cls, url: str, *, token: str | None = None) -> WebSocketTransport:
        """Connect to `ws://host:port` or `wss://host:port`.

        Args:
            url: the listener's URL as printed by the server (`listening on: ws://…`).
            token: a capability token or signed bearer token, sent as `Authorization: Bearer`;
                None reads the daemon's generated token when `url` is on loopback.

        Raises:
            ForeignListener: a loopback port held by another user (the token is not sent).
        """
        loopback = is_loopback_url(url)
        if token is None and loopback:
            token = read_default_token()
        if not (token and loopback):
            ws = await connect(url, additional_headers=_auth(token), max_size=_MAX_MESSAGE, compression=None)
            return cls(ws)
        # Connect first, then see whose socket answered: the token goes only to our own daemon
        # (and never through a proxy named in the environment).
        async with asyncio.timeout(_CONNECT_TIMEOUT_S):
            sock = await _open_tcp(url)
        try:
            check_listener(sock, url)
            ws = await connect(
                url, sock=sock, additional_headers=_auth(token), max_size=_MAX_MESSAGE, compression=None
            )
        except BaseException:
            sock.close()
            raise
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


def _home() -> Path:
    # The same home the server picks: $TETHER_HOME, else $CODEX_HOME, else ~/.tether.
    home = os.environ.get("TETHER_HOME", "").strip() or os.environ.get("CODEX_HOME", "").strip()
    return Path(home).expanduser() if home else Path.home() / ".tether"


def default_socket_path() -> Path:
    """The daemon's control socket: `$TETHER_HOME/app-server-control/app-server-control.sock`."""
    return _home() / "app-server-control" / "app-server-control.sock"


def default_token_path() -> Path:
    """Where a daemon started without `--ws-auth` keeps its generated token: `$TETHER_HOME/ws-token`."""
    return _home() / TOKEN_FILE


def read_default_token() -> str | None:
    """The generated token, or None when there is none to read (the server then answers 401)."""
    try:
        token = default_token_path().read_text().strip()
    except (OSError, UnicodeDecodeError):
        return None
    return token or None


def is_loopback_url(url: str) -> bool:
    """Whether `url`'s host is this machine (`localhost` or a loopback address)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def _open_tcp(url: str) -> socket.socket:
    """A connected, non-blocking TCP socket to `url`'s host and port (the first address that answers)."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "wss" else 80)
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    failure: OSError = OSError(f"cannot resolve {parts.hostname}")
    for family, kind, proto, _name, address in infos:
        sock = socket.socket(family, kind, proto)
        sock.setblocking(False)
        try:
            await loop.sock_connect(sock, address)
        except OSError as exc:
            sock.close()
            failure = exc
            continue
        except BaseException:
            sock.close()
            raise
        return sock
    raise failure


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
