"""Errors the SDK raises."""

from __future__ import annotations

from typing import Any


class TetherClientError(Exception):
    """Base of every SDK error."""


class TransportClosed(TetherClientError):
    """The connection to the app-server is gone; nothing more can be sent or received."""


class ForeignListener(TransportClosed):
    """A loopback port is held by another user's process, not the daemon: no token was sent there."""


class RpcError(TetherClientError):
    """The server answered a request with a JSON-RPC error.

    Attributes:
        code: The JSON-RPC error code (e.g. -32600 invalid request, -32001 overloaded).
        message: The server's message.
        data: The optional `data` member, as sent.
    """

    def __init__(self, method: str, error: dict[str, Any]) -> None:
        self.method = method
        self.code = int(error.get("code", 0))
        self.message = str(error.get("message", ""))
        self.data: Any = error.get("data")
        super().__init__(f"{method}: {self.code} {self.message}")
