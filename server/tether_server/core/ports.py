"""What the core needs from outside, as Protocols (implemented by threads/ and processor/)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from tether_server.core.events import ApprovalAnswer, ApprovalAsk, CoreEvent, UserInputAnswer, UserInputAsk


class EventSink(Protocol):
    async def emit(self, event: CoreEvent) -> None:
        """Report an event; a durable one is committed, with everything the thread recorded since
        the last commit, before any client sees it."""
        ...

    def emit_delta(self, event: CoreEvent) -> None:
        """Report an ephemeral event from synchronous code (an output callback)."""
        ...

    def emit_deltas(self, events: Sequence[CoreEvent]) -> None:
        """Report several ephemeral events at once, in order: a network chunk's streamed text."""
        ...


class ApprovalDenied(Exception):
    """The client answered the approval request with a JSON-RPC error."""


class ApprovalPort(Protocol):
    async def request(self, ask: ApprovalAsk) -> ApprovalAnswer:
        """Ask the subscribed clients; returns the first answer. Raises ApprovalDenied."""
        ...

    async def request_user_input(self, ask: UserInputAsk) -> UserInputAnswer:
        """Put the model's questions to the subscribed clients; returns the first answer."""
        ...
