"""A response read whole for its answer, for the model calls that stream nothing to a client
(compaction's summary, the automatic reviewer, `review/start`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import assert_never

from tether_server.providers.base import (
    Completed,
    Created,
    ModelEvent,
    OutputItemAdded,
    OutputItemDone,
    OutputTextDelta,
    ReasoningSummaryDelta,
    ReasoningSummaryPartAdded,
    ReasoningTextDelta,
    TokenUsage,
    ToolCallInputDelta,
)

OnUsage = Callable[[TokenUsage], Awaitable[None]]


async def read_answer(events: AsyncIterator[ModelEvent], on_usage: OnUsage | None = None) -> str:
    """The text of the response's last message; `on_usage` gets the response's token usage."""
    answer = ""
    async for event in events:
        # Every event type is named here (assert_never): a new one fails mypy until it is handled.
        match event:
            case OutputItemDone():
                if event.item.get("type") == "message":
                    answer = "".join(str(c.get("text", "")) for c in event.item.get("content") or [])
            case Completed():
                if on_usage is not None and event.usage is not None:
                    await on_usage(event.usage)
            case (
                Created()
                | OutputItemAdded()
                | OutputTextDelta()
                | ReasoningSummaryPartAdded()
                | ReasoningSummaryDelta()
                | ReasoningTextDelta()
                | ToolCallInputDelta()
            ):
                # Nobody watches these calls stream: only the finished message counts.
                pass
            case _:
                assert_never(event)
    return answer
