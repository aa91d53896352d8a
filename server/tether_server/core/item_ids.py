"""Thread item ids for the model's output items: minted here, never taken from the model.

Codex 0.169.0 uses the model's output item ids (`msg_…`, `rs_…`) as its items' ids. The hosted API
never repeats one, but a server that numbers its responses from 1 each time (local servers, proxies,
fakes) does: with those ids a later turn's message would take over an earlier turn's item in the
store. So each message, reasoning and web search item gets a uuid7 when the model announces it, and
the events about it are renamed on their way in. The model history never carried these ids
(`store=false` requests leave them out); tool calls keep their `call_id`, which the model history
needs and which names their items as in Codex.
"""

from __future__ import annotations

from dataclasses import replace

from tether_server.core import web_search
from tether_server.core.ids import uuid7
from tether_server.providers.base import (
    ModelEvent,
    OutputItemAdded,
    OutputItemDone,
    OutputTextDelta,
    ReasoningSummaryDelta,
    ReasoningSummaryPartAdded,
    ReasoningTextDelta,
)

RENAMED_TYPES = frozenset({"message", "reasoning", web_search.CALL_TYPE})
"""The output items that become thread items named by the model's item id."""


class OutputItemIds:
    """One response's model item ids → thread item ids."""

    def __init__(self) -> None:
        self._open: dict[str, str] = {}

    def rename(self, batch: list[ModelEvent]) -> list[ModelEvent]:
        """`batch` with the thread's ids in place of the model's (a new list; events are not changed)."""
        out: list[ModelEvent] = []
        for event in batch:
            if isinstance(event, OutputTextDelta):
                event = OutputTextDelta(self._id(event.item_id), event.delta)
            elif isinstance(event, ReasoningSummaryDelta):
                event = ReasoningSummaryDelta(self._id(event.item_id), event.summary_index, event.delta)
            elif isinstance(event, ReasoningTextDelta):
                event = ReasoningTextDelta(self._id(event.item_id), event.content_index, event.delta)
            elif isinstance(event, ReasoningSummaryPartAdded):
                event = replace(event, item_id=self._id(event.item_id))
            elif isinstance(event, OutputItemAdded | OutputItemDone):
                event = self._item(event)
            out.append(event)
        return out

    def _item(self, event: OutputItemAdded | OutputItemDone) -> OutputItemAdded | OutputItemDone:
        if event.item.get("type") not in RENAMED_TYPES:
            return event
        model_id = str(event.item.get("id") or "")
        thread_id = self._id(model_id)
        if isinstance(event, OutputItemDone):
            # Finished: the same model id later in the response is another item.
            del self._open[model_id]
        return replace(event, item={**event.item, "id": thread_id})

    def _id(self, model_id: str) -> str:
        found = self._open.get(model_id)
        if found is None:
            found = self._open[model_id] = uuid7()
        return found
