"""A thread's record, model history and the writes not yet committed (the pending batch).

The thread handle takes the pending batch whenever it commits a durable event, so what is
recorded here reaches the store in the same transaction as the event that announces it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tether_server.core.history import MARKER, fold
from tether_server.core.ids import uuid7
from tether_server.core.items import ThreadItem
from tether_server.store.base import (
    Batch,
    HistoryRecord,
    ItemRecord,
    StoredHistory,
    ThreadRecord,
    TurnRecord,
)

_CALLS = frozenset({"function_call", "custom_tool_call", "tool_search_call"})


class ThreadRecorder:
    """Appends to one thread's history, items and turns; hands the pending writes to the handle."""

    def __init__(
        self,
        record: ThreadRecord,
        item_json: Callable[[ThreadItem], dict[str, Any]],
        *,
        history: list[dict[str, Any]] | StoredHistory | None = None,
        turn_count: int = 0,
        item_count: int = 0,
        ephemeral: bool = False,
    ) -> None:
        self.record = record
        self._item_json = item_json
        self.ephemeral = ephemeral
        # A stored history is parsed when a turn first needs it (see StoredHistory).
        self._stored = history if isinstance(history, StoredHistory) else None
        self._history: list[dict[str, Any]] = []
        # Every call id the model ever used in this thread (compacted history included): a tool
        # call item is named by its call id only the first time (`tool_item_id`).
        self._call_ids: set[str] = set()
        if not isinstance(history, StoredHistory):
            self._take(list(history or []))
        self._history_ordinal = len(history or [])  # stored records, markers included
        self._turn_count = turn_count
        self._item_count = item_count
        self._unsaved = Batch()
        # A thread is written once it has content; until then it lives in memory only.
        self.materialized = bool(history) or bool(record.preview)

    def _take(self, entries: list[dict[str, Any]]) -> None:
        self._history = fold(entries)
        self._call_ids = {str(i["call_id"]) for i in entries if i.get("type") in _CALLS and "call_id" in i}

    def _parsed(self) -> None:
        stored, self._stored = self._stored, None
        if stored is not None:
            self._take(stored.parse())

    @property
    def history(self) -> list[dict[str, Any]]:
        """The model history the thread continues from (compactions applied)."""
        self._parsed()
        return self._history

    @history.setter
    def history(self, history: list[dict[str, Any]]) -> None:
        self._parsed()
        self._history = history

    @property
    def thread_id(self) -> str:
        return self.record.id

    def next_turn_ordinal(self) -> int:
        ordinal = self._turn_count
        self._turn_count += 1
        return ordinal

    def history_entry(self, turn_id: str, item: dict[str, Any]) -> None:
        """Append one model-history entry (what the model sees next time)."""
        self.history.append(item)
        self._unsaved.history.append(HistoryRecord(self.record.id, turn_id, self._history_ordinal, item))
        self._history_ordinal += 1

    def tool_item_id(self, call_id: str) -> str:
        """The id of the item of a tool call `call_id`: the call id itself, as in Codex, unless an
        earlier call of the thread had it (a model server that numbers its calls from 1 in every
        response): then a fresh id, so the later call never takes over the earlier call's item."""
        self._parsed()
        if call_id and call_id not in self._call_ids:
            self._call_ids.add(call_id)
            return call_id
        return uuid7()

    def compacted(self, turn_id: str, replacement: list[dict[str, Any]]) -> None:
        """Record a compaction marker and continue from its replacement history."""
        self.history_entry(turn_id, {"type": MARKER, "replacement": replacement})
        self.history = fold(self.history)

    def replace_history(self, history: list[dict[str, Any]]) -> None:
        """Start from another thread's history (an ephemeral fork; nothing is written)."""
        self.history = list(history)

    def item(self, turn_id: str, item: ThreadItem) -> None:
        """Record a finished item, in the JSON form the store keeps."""
        self._unsaved.items.append(
            ItemRecord(
                self.record.id,
                turn_id,
                item.id,
                self._item_count,
                self._item_json(item),
                item.started_at_ms,
                item.completed_at_ms,
            )
        )
        self._item_count += 1

    def turn(self, record: TurnRecord) -> None:
        self._unsaved.turns.append(record)

    def thread_changed(self) -> None:
        """The thread row changed (preview, times, settings): write it with the next commit."""
        self._unsaved.thread = self.record

    def take_batch(self) -> Batch | None:
        """Everything recorded since the last durable event (the handle commits it with the event)."""
        batch = self._unsaved
        self._unsaved = Batch()
        if self.ephemeral:
            return None
        return batch
