"""JSON-RPC error codes and the error payload."""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from pydantic import BaseModel


class ErrorCode(IntEnum):
    """Codes Tether puts on the wire."""

    PARSE_ERROR = -32700
    """The frame was not JSON."""
    INVALID_REQUEST = -32600
    """Codex's catch-all for application errors, and a well-formed frame that is no message."""
    METHOD_NOT_FOUND = -32601
    """Unknown method (Codex answers -32600 here; we keep JSON-RPC's code)."""
    INVALID_PARAMS = -32602
    """Params did not validate."""
    INTERNAL_ERROR = -32603
    """A bug or an I/O failure inside the server."""
    SERVER_OVERLOADED = -32001
    """The ingress queue is full; the client should retry later."""


class ErrorData(BaseModel):
    """The `error` member of an error response."""

    code: int
    message: str
    data: Any = None

    def wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            out["data"] = self.data
        return out
