"""What the core needs from outside, as Protocols (implemented by threads/ and processor/)."""

from __future__ import annotations

from typing import Any, Protocol

from tether_server.store.base import Batch


class EventSink(Protocol):
    async def emit(self, method: str, params: dict[str, Any], *, batch: Batch | None = None) -> None:
        """A durable event: committed (with `batch`) before any client sees it."""
        ...

    def emit_transient(self, method: str, params: dict[str, Any]) -> None:
        """A delta: kept in the in-memory ring and fanned out, never written to disk."""
        ...


class ApprovalDenied(Exception):
    """The client answered the approval request with a JSON-RPC error."""


class ApprovalPort(Protocol):
    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Ask the subscribed clients; returns the first answer's result. Raises ApprovalDenied."""
        ...
