"""Tether's wire contract: Codex app-server v2 types, JSON-RPC envelopes and the method table.

Depends on pydantic and the standard library only.
"""

from tether_protocol.common import EmptyParams, EmptyResult, WireModel
from tether_protocol.errors import ErrorCode, ErrorData
from tether_protocol.spec import MethodSpec, NotificationSpec, ServerRequestSpec

CODEX_PROTOCOL_VERSION = "0.169.0"
"""The codex-cli release whose app-server protocol Tether implements."""

__all__ = [
    "CODEX_PROTOCOL_VERSION",
    "EmptyParams",
    "EmptyResult",
    "ErrorCode",
    "ErrorData",
    "MethodSpec",
    "NotificationSpec",
    "ServerRequestSpec",
    "WireModel",
]
