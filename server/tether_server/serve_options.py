"""How to serve: the parsed `--listen` URLs, auth, limits and the managed daemon's pid file.

Pure option handling, checked before anything listens; `serve` runs what these describe.
"""

from __future__ import annotations

import fcntl
import ipaddress
import math
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from tether_server import log
from tether_server.errors import ConfigError
from tether_server.rpc.connection import DEFAULT_OUTBOX
from tether_server.transports import unix
from tether_server.transports.limits import (
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_PER_PEER,
    DEFAULT_PRE_AUTH_TIMEOUT_S,
    MAX_MESSAGE_BYTES,
)
from tether_server.transports.ws_auth import WsAuth, WsAuthFlags, generated_token, load_auth

_log = log.get("tether.serve")

PID_FILE = "app-server.pid"
# Frames buffered per connection before websockets stops reading its socket (its default is 16):
# with 16 MiB messages, 16 frames let one client pin 256 MiB.
DEFAULT_RECEIVE_QUEUE = 4


@dataclass(frozen=True)
class Listen:
    """One `--listen` URL, parsed. `scheme` is `stdio`, `unix`, `ws` or `wss`."""

    scheme: str
    path: Path | None = None
    host: str = ""
    port: int = 0
    default_path: bool = False

    @property
    def is_loopback(self) -> bool:
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False


@dataclass
class ServeOptions:
    """How to serve: listeners, WebSocket auth and TLS, connection limits, managed-daemon pid file.

    `auth` None means no auth at all, which only `--ws-auth none` on loopback asks for (`no_auth`).
    """

    listens: list[Listen]
    auth: WsAuth | None = None
    no_auth: bool = False
    tls_cert: Path | None = None
    tls_key: Path | None = None
    outbox_capacity: int = DEFAULT_OUTBOX
    max_message_bytes: int = MAX_MESSAGE_BYTES
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    max_connections_per_peer: int = DEFAULT_MAX_PER_PEER
    receive_queue: int = DEFAULT_RECEIVE_QUEUE
    pre_auth_timeout_s: float = DEFAULT_PRE_AUTH_TIMEOUT_S
    pid_file: Path | None = None
    fleet_listen: Listen | None = None  # other fleet nodes reach this one here
    fleet_secret: bytes | None = None

    @property
    def sockets(self) -> list[Listen]:
        return [lst for lst in self.listens if lst.scheme in ("ws", "wss")]


def parse_listen(url: str, home: Path) -> Listen:
    """Parse a `--listen` URL: `stdio://`, `unix://`, `unix://PATH`, `ws://IP:PORT`, `wss://IP:PORT`.

    Raises:
        ConfigError: an unknown scheme or a WebSocket URL without a port.
    """
    if url == "stdio://":
        return Listen("stdio")
    if url.startswith("unix://"):
        rest = url.removeprefix("unix://")
        if not rest:
            return Listen("unix", unix.default_socket_path(home), default_path=True)
        return Listen("unix", Path(rest).expanduser().absolute())
    parts = urlsplit(url)
    if parts.scheme in ("ws", "wss"):
        try:
            port = parts.port
        except ValueError:
            port = None
        if port is None or not parts.hostname:
            raise ConfigError(f"--listen {url}: expected {parts.scheme}://IP:PORT", key="--listen")
        return Listen(parts.scheme, host=parts.hostname, port=port)
    raise ConfigError(
        f"unsupported --listen {url!r}; expected stdio://, unix://, unix://PATH, ws://IP:PORT or wss://IP:PORT",
        key="--listen",
    )


def parse_fleet_listen(url: str, secret: bytes | None) -> Listen:
    """`--fleet-listen ws://IP:PORT`: the address is advertised to the other nodes as given (port 0:
    the port bound), so it must name one interface, and the fleet secret must guard it.

    Raises:
        ConfigError: another form, a wildcard address, or no `--fleet-secret-file`.
    """
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme != "ws" or port is None or not parts.hostname or parts.path not in ("", "/"):
        raise ConfigError(f"--fleet-listen {url}: expected ws://IP:PORT", key="--fleet-listen")
    try:
        wildcard = ipaddress.ip_address(parts.hostname).is_unspecified
    except ValueError:
        wildcard = False
    if wildcard:
        raise ConfigError(
            f"--fleet-listen {url}: other nodes connect to the address given, so name one interface's "
            "address, not a wildcard",
            key="--fleet-listen",
        )
    if secret is None:
        raise ConfigError(
            "--fleet-listen needs --fleet-secret-file (the fleet's shared secret)", key="--fleet-listen"
        )
    return Listen("ws", host=parts.hostname, port=port)


def resolve_auth(flags: WsAuthFlags, listens: list[Listen], home: Path) -> tuple[WsAuth | None, bool]:
    """The TCP listeners' auth and whether it was explicitly turned off (`--ws-auth none`).

    Without `--ws-auth`, loopback TCP listeners get the capability token generated in `home`; a
    non-loopback one still needs auth configured explicitly (check_options refuses it).

    Raises:
        ConfigError: bad `--ws-*` flags, or the token file cannot be used.
    """
    auth = load_auth(flags)
    no_auth = flags.mode == "none"
    sockets = [lst for lst in listens if lst.scheme in ("ws", "wss")]
    if auth is None and not no_auth and sockets and all(lst.is_loopback for lst in sockets):
        auth = generated_token(home)
    return auth, no_auth


def check_options(options: ServeOptions) -> None:
    """Refuse combinations that must not start (before anything is opened).

    Raises:
        ConfigError: a non-loopback WebSocket listener without auth, TLS flags that do not match,
            limits that are not positive.
    """
    sockets = options.sockets
    for lst in sockets:
        if not lst.is_loopback and options.auth is None:
            raise ConfigError(
                f"refusing to start non-loopback websocket listener {lst.host}:{lst.port} without auth; "
                "configure `--ws-auth capability-token` or `--ws-auth signed-bearer-token`",
                key="--ws-auth",
            )
    if options.no_auth and not sockets:
        raise ConfigError("--ws-auth needs a ws:// or wss:// listener", key="--ws-auth")
    limits = {
        "--max-connections": options.max_connections,
        "--max-connections-per-peer": options.max_connections_per_peer,
        "--receive-queue": options.receive_queue,
    }
    for flag, value in limits.items():
        if value < 1:
            raise ConfigError(f"{flag} must be at least 1", key=flag)
    if not (math.isfinite(options.pre_auth_timeout_s) and options.pre_auth_timeout_s > 0):
        raise ConfigError("--pre-auth-timeout must be more than 0 seconds", key="--pre-auth-timeout")
    wants_tls = any(lst.scheme == "wss" for lst in sockets)
    has_tls = options.tls_cert is not None or options.tls_key is not None
    if wants_tls and (options.tls_cert is None or options.tls_key is None):
        raise ConfigError("wss:// needs both --tls-cert and --tls-key", key="--tls-cert")
    if has_tls and not wants_tls:
        raise ConfigError("--tls-cert/--tls-key need a wss:// listener", key="--tls-cert")
    if options.auth is not None and not sockets:
        raise ConfigError("--ws-auth needs a ws:// or wss:// listener", key="--ws-auth")
    if [lst.scheme for lst in options.listens].count("stdio") > 1:
        raise ConfigError("stdio:// can be listened on once", key="--listen")


def private_paths(home: Path, options: ServeOptions | None = None) -> list[Path]:
    """Paths sandboxed commands must not see: the control directory, sockets and credential files."""
    paths = [home / unix.CONTROL_DIR]
    if options is not None:
        paths += [lst.path for lst in options.listens if lst.path is not None and not lst.default_path]
        source = getattr(options.auth, "source", None)
        if source is not None:
            paths.append(source)
        if options.tls_key is not None:
            paths.append(options.tls_key)
    return paths


def lock_pid_file(path: Path) -> int:
    """Hold an exclusive lock on `path` for the life of the process and write our pid into it.

    Raises:
        ConfigError: another process holds it (a daemon already runs).
    """
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as exc:
        os.close(fd)
        raise ConfigError(f"an app-server daemon already runs (pid file {path} is locked)") from exc
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd
