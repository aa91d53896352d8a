"""JSON-RPC envelopes as Codex speaks them: no `"jsonrpc"` member on output."""

from __future__ import annotations

from typing import Any

RequestId = str | int
"""Ids are echoed exactly as the peer sent them."""


def response(request_id: RequestId, result: dict[str, Any]) -> dict[str, Any]:
    return {"id": request_id, "result": result}


def error_response(request_id: RequestId | None, error: dict[str, Any]) -> dict[str, Any]:
    return {"error": error, "id": request_id}


def notification(method: str, params: dict[str, Any] | None, emitted_at_ms: int) -> dict[str, Any]:
    out: dict[str, Any] = {"method": method}
    if params is not None:
        out["params"] = params
    out["emittedAtMs"] = emitted_at_ms
    return out


def request(request_id: RequestId, method: str, params: dict[str, Any] | None) -> dict[str, Any]:
    out: dict[str, Any] = {"id": request_id, "method": method}
    if params is not None:
        out["params"] = params
    return out


def is_request_id(value: object) -> bool:
    """Codex accepts string and integer ids; floats, bools and null are not ids."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))
