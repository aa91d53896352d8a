"""Token accounting across a thread: totals, the last response, and the context window."""

from __future__ import annotations

from tether_server.providers.base import TokenUsage


class UsageTracker:
    def __init__(self, context_window: int | None) -> None:
        self.total = TokenUsage()
        self.last = TokenUsage()
        self.context_window = context_window

    def add(self, usage: TokenUsage) -> None:
        t = self.total
        self.total = TokenUsage(
            input_tokens=t.input_tokens + usage.input_tokens,
            cached_input_tokens=t.cached_input_tokens + usage.cached_input_tokens,
            output_tokens=t.output_tokens + usage.output_tokens,
            reasoning_output_tokens=t.reasoning_output_tokens + usage.reasoning_output_tokens,
            total_tokens=t.total_tokens + usage.total_tokens,
        )
        self.last = usage

    def reset_last(self, estimated_total: int) -> None:
        """After compaction the context is only as full as the new history."""
        self.last = TokenUsage(input_tokens=estimated_total, total_tokens=estimated_total)
