"""The fleet listener's boundary: the shared secret, and the mutual challenge-response on it.

Nodes of one fleet reach each other over WebSocket (`--fleet-listen`). Before anything else on
such a connection, each side proves it holds the fleet secret without sending it: both send a
fresh nonce, and each answers with HMAC-SHA256(secret, role | the other's nonce | its own). The
connecting node proves itself first, so a peer without the secret receives only a random nonce
before the connection is closed; the listener proves itself next, so a node never relays a
client's requests to an impostor. Proofs are compared in constant time (`hmac.compare_digest`).
The roles differ, so no proof one side gives can be replayed as the other's.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
from pathlib import Path

import orjson
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
from websockets.frames import CloseCode

from tether_server.errors import ConfigError
from tether_server.transports.websocket import WebSocketStream

MIN_SECRET_BYTES = 32
_NONCE_BYTES = 32
_MAX_HELLO = 512  # a handshake message; anything longer is not one
REFUSED = "fleet authentication failed"


class FleetAuthError(ConnectionError):
    """The peer did not prove it holds the fleet secret (or broke the handshake)."""


def read_secret(path: Path) -> bytes:
    """The fleet secret: the whole file, at least 32 bytes of anything.

    Raises:
        ConfigError: unreadable or too short (the daemon refuses to start, exit 2).
    """
    try:
        secret = path.read_bytes()
    except OSError as exc:
        raise ConfigError(
            f"--fleet-secret-file {path}: cannot read it ({exc.strerror or exc})", key="--fleet-secret-file"
        ) from None
    if len(secret) < MIN_SECRET_BYTES:
        raise ConfigError(
            f"--fleet-secret-file {path}: the fleet secret must be at least {MIN_SECRET_BYTES} bytes "
            f"(it has {len(secret)})",
            key="--fleet-secret-file",
        )
    return secret


def _proof(secret: bytes, role: bytes, theirs: str, mine: str) -> str:
    return hmac.new(secret, b"|".join((role, theirs.encode(), mine.encode())), hashlib.sha256).hexdigest()


def _field(frame: str | bytes, name: str) -> str:
    if not isinstance(frame, str) or len(frame) > _MAX_HELLO:
        raise FleetAuthError("not a fleet handshake message")
    try:
        message = orjson.loads(frame)
    except orjson.JSONDecodeError:
        raise FleetAuthError("not a fleet handshake message") from None
    value = message.get(name) if isinstance(message, dict) else None
    if not isinstance(value, str) or not value or len(value) > 128:
        raise FleetAuthError(f"the fleet handshake lacks {name}")
    return value


async def accept_peer(ws: ServerConnection, secret: bytes, timeout_s: float) -> bool:
    """The listener's side; False (and the connection closed) unless the peer proved the secret."""
    mine = secrets.token_hex(_NONCE_BYTES)
    try:
        async with asyncio.timeout(timeout_s):
            theirs = _field(await ws.recv(), "nonce")
            await ws.send(orjson.dumps({"nonce": mine}).decode())
            proof = _field(await ws.recv(), "proof")
            if not hmac.compare_digest(proof, _proof(secret, b"node", mine, theirs)):
                raise FleetAuthError(REFUSED)
            await ws.send(orjson.dumps({"proof": _proof(secret, b"listener", theirs, mine)}).decode())
            return True
    except (FleetAuthError, ConnectionClosed, TimeoutError):
        await ws.close(CloseCode.POLICY_VIOLATION, REFUSED)
        return False


async def connect_peer(
    address: str, secret: bytes, *, timeout_s: float, keepalive_s: float
) -> ClientConnection:
    """Open an authenticated connection to the node listening at `address`.

    Raises:
        ConnectionError: unreachable, or it did not prove the fleet secret (FleetAuthError).
    """
    try:
        ws = await connect(
            address,
            open_timeout=timeout_s,
            compression=None,
            max_size=None,  # the listener's own limit applies to what we send; answers are its to size
            ping_interval=keepalive_s,
            ping_timeout=keepalive_s,
        )
    except (OSError, TimeoutError, InvalidHandshake, InvalidURI) as exc:
        raise ConnectionError(f"cannot reach fleet node at {address}: {exc}") from exc
    mine = secrets.token_hex(_NONCE_BYTES)
    try:
        async with asyncio.timeout(timeout_s):
            await ws.send(orjson.dumps({"nonce": mine}).decode())
            theirs = _field(await ws.recv(), "nonce")
            await ws.send(orjson.dumps({"proof": _proof(secret, b"node", theirs, mine)}).decode())
            proof = _field(await ws.recv(), "proof")
            if not hmac.compare_digest(proof, _proof(secret, b"listener", mine, theirs)):
                raise FleetAuthError(f"fleet node at {address} did not prove the fleet secret")
    except (FleetAuthError, ConnectionClosed, TimeoutError) as exc:
        await ws.close(CloseCode.POLICY_VIOLATION, REFUSED)
        raise FleetAuthError(f"fleet handshake with {address} failed: {exc or 'timed out'}") from exc
    return ws


class FleetPeerStream(WebSocketStream):
    """Another node's authenticated connection, served as a client's: it relays its clients."""
