"""Tether's wire contract: Codex app-server v2 types, JSON-RPC envelopes and the method table.

Depends on pydantic and the standard library only. The names below load their module on first
use, so that `tether_protocol.jsonrpc` and `CODEX_PROTOCOL_VERSION` come without pydantic: a stdio
daemon answers `initialize` before pydantic has loaded.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

CODEX_PROTOCOL_VERSION = "0.169.0"
"""The codex-cli release whose app-server protocol Tether implements."""

if TYPE_CHECKING:
    from tether_protocol.common import EmptyParams, EmptyResult, WireModel
    from tether_protocol.errors import ErrorCode, ErrorData
    from tether_protocol.spec import MethodSpec, NotificationSpec, ServerRequestSpec

_HOME = {
    "EmptyParams": "tether_protocol.common",
    "EmptyResult": "tether_protocol.common",
    "WireModel": "tether_protocol.common",
    "ErrorCode": "tether_protocol.errors",
    "ErrorData": "tether_protocol.errors",
    "MethodSpec": "tether_protocol.spec",
    "NotificationSpec": "tether_protocol.spec",
    "ServerRequestSpec": "tether_protocol.spec",
}


def __getattr__(name: str) -> object:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'tether_protocol' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


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
