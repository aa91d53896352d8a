"""The in-memory ThreadStore twin: the same observable behaviour as SQLite, nothing on disk.

Used by tests and ephemeral runs. Records are copied in and out, so callers never share state
with the store, just as with rows read from a database.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import orjson

from tether_server.store import sources
from tether_server.store.base import (
    Batch,
    EventRecord,
    HistoryRecord,
    ItemRecord,
    LoadedThread,
    Page,
    ReadState,
    SessionLoad,
    SortDirection,
    StoredHistory,
    StoreError,
    ThreadQuery,
    ThreadRecord,
    TurnRecord,
)
from tether_server.store.cursors import (
    Position,
    clamp_limit,
    decode_cursor,
    item_position,
    make_page,
    thread_position,
    thread_scope,
    turn_position,
)
from tether_server.store.memory_desktop import MemoryDesktop
from tether_server.store.search_text import contains_folded, item_text, normalise_term
from tether_server.store.sections import MemorySections

R = TypeVar("R")


@dataclass
class _Thread:
    record: ThreadRecord
    turns: dict[str, TurnRecord] = field(default_factory=dict)
    items: dict[str, ItemRecord] = field(default_factory=dict)
    history: dict[int, HistoryRecord] = field(default_factory=dict)
    events: dict[int, EventRecord] = field(default_factory=dict)
    read_state: ReadState = field(default_factory=ReadState)
    goal: dict[str, Any] | None = None


def _rows_after(
    rows: Iterable[R], position_of: Callable[[R], Position], after: Position | None, limit: int, desc: bool
) -> list[R]:
    """Rows in (k, id) order for the direction, strictly after `after`, at most `limit`."""
    ordered = sorted(rows, key=lambda r: _key(position_of(r)), reverse=desc)
    if after is not None:
        mark = _key(after)
        ordered = [r for r in ordered if _beyond(_key(position_of(r)), mark, desc)]
    return [copy.deepcopy(r) for r in ordered[:limit]]


def _beyond(key: tuple[int, str], mark: tuple[int, str], desc: bool) -> bool:
    return key < mark if desc else key > mark


def _key(position: Position) -> tuple[int, str]:
    return (position.k, position.id)


def _matches(thread: _Thread, query: ThreadQuery, term: str | None) -> bool:
    r = thread.record
    return (
        r.preview != ""
        and r.archived == query.archived
        and not (query.cwds and r.cwd not in query.cwds)
        and not (query.model_providers and r.model_provider not in query.model_providers)
        and sources.listed(r.source, query.sources)
        and r.id not in query.exclude_ids
        and (term is None or _contains(thread, term))
    )


def _contains(thread: _Thread, term: str) -> bool:
    texts = [thread.record.name, thread.record.preview]
    texts.extend(item_text(i.item) for i in thread.items.values())
    return any(contains_folded(t, term) for t in texts)


class MemoryThreadStore(MemorySections, MemoryDesktop):
    """ThreadStore kept in dictionaries; the behaviour suite runs against it and SQLite alike."""

    def __init__(self) -> None:
        self._threads: dict[str, _Thread] = {}

    async def open(self) -> None:
        """Nothing to open."""

    async def close(self) -> None:
        """Nothing to close; the data stays until the object goes."""

    async def commit(self, batch: Batch) -> None:
        """Apply `batch` atomically; StoreError when it breaks a constraint (nothing is written)."""
        batch = copy.deepcopy(batch)
        self._check(batch)
        if batch.thread is not None:
            self._upsert_thread(batch.thread)
        for turn in batch.turns:
            self._threads[turn.thread_id].turns[turn.turn_id] = turn
        for item in batch.items:
            items = self._threads[item.thread_id].items
            stored = items.get(item.item_id)
            if stored is None or stored.turn_id == item.turn_id:  # never moved between turns
                items[item.item_id] = item
        for entry in batch.history:
            self._threads[entry.thread_id].history[entry.ordinal] = entry
        for event in batch.events:
            thread = self._threads[event.thread_id]
            thread.events[event.seq] = event
            thread.record.last_seq = max(thread.record.last_seq, event.seq)

    def _check(self, batch: Batch) -> None:
        known = set(self._threads) | ({batch.thread.id} if batch.thread else set())
        children: list[TurnRecord | ItemRecord | HistoryRecord | EventRecord]
        children = [*batch.turns, *batch.items, *batch.history, *batch.events]
        missing = {c.thread_id for c in children} - known
        if missing:
            first = sorted(missing)[0]
            raise StoreError(f"commit rejected: no thread {first} (FOREIGN KEY constraint failed)")
        history = [(h.thread_id, h.ordinal) for h in batch.history]
        events = [(e.thread_id, e.seq) for e in batch.events]
        self._check_unique("history ordinal", history, lambda t, n: n in self._threads[t].history)
        self._check_unique("event seq", events, lambda t, n: n in self._threads[t].events)

    def _check_unique(
        self, what: str, keys: list[tuple[str, int]], stored: Callable[[str, int], bool]
    ) -> None:
        seen: set[tuple[str, int]] = set()
        for thread_id, number in keys:
            if (thread_id, number) in seen or (thread_id in self._threads and stored(thread_id, number)):
                raise StoreError(f"commit rejected: duplicate {what} {number} for thread {thread_id}")
            seen.add((thread_id, number))

    def _upsert_thread(self, record: ThreadRecord) -> None:
        existing = self._threads.get(record.id)
        if existing is None:
            self._threads[record.id] = _Thread(record)
        else:
            record.last_seq = max(record.last_seq, existing.record.last_seq)
            existing.record = record

    async def get_thread(self, thread_id: str) -> ThreadRecord | None:
        thread = self._threads.get(thread_id)
        return copy.deepcopy(thread.record) if thread else None

    async def load_thread(self, thread_id: str) -> LoadedThread | None:
        thread = self._threads.get(thread_id)
        if thread is None:
            return None
        return copy.deepcopy(
            LoadedThread(
                record=thread.record,
                turns=sorted(thread.turns.values(), key=lambda t: (t.ordinal, t.turn_id)),
                items=sorted(thread.items.values(), key=lambda i: (i.ordinal, i.item_id)),
                history=[thread.history[n] for n in sorted(thread.history)],
            )
        )

    async def load_session(self, thread_id: str) -> SessionLoad | None:
        loaded = await self.load_thread(thread_id)
        if loaded is None:
            return None
        history = StoredHistory([orjson.dumps(h.item) for h in loaded.history])
        return SessionLoad(loaded.record, history, len(loaded.turns), len(loaded.items))

    async def item_texts(self, thread_id: str) -> list[tuple[str, str]]:
        thread = self._threads.get(thread_id)
        if thread is None:
            return []
        items = sorted(thread.items.values(), key=lambda i: (i.ordinal, i.item_id))
        return [(i.turn_id, orjson.dumps(i.item).decode()) for i in items]

    async def list_threads(self, query: ThreadQuery) -> Page[ThreadRecord]:
        """One page of listed threads; raises InvalidCursor for a foreign cursor."""
        scope = thread_scope(query.sort_key)
        after = decode_cursor(query.cursor, scope) if query.cursor else None
        limit = clamp_limit(query.limit)
        term = normalise_term(query.search_term)
        records = [t.record for t in self._threads.values() if _matches(t, query, term)]
        position = thread_position(query.sort_key)
        rows = _rows_after(records, position, after, limit + 1, query.sort_direction == "desc")
        return make_page(rows, limit=limit, scope=scope, cursor=query.cursor, position_of=position)

    async def list_turns(
        self, thread_id: str, *, cursor: str | None, limit: int, direction: SortDirection
    ) -> Page[TurnRecord]:
        """A page of the thread's turns by ordinal; raises InvalidCursor for a foreign cursor."""
        scope = f"turns:{thread_id}"
        after = decode_cursor(cursor, scope) if cursor else None
        limit = clamp_limit(limit)
        thread = self._threads.get(thread_id)
        turns = thread.turns.values() if thread else []
        rows = _rows_after(turns, turn_position, after, limit + 1, direction == "desc")
        return make_page(rows, limit=limit, scope=scope, cursor=cursor, position_of=turn_position)

    async def list_items(
        self,
        thread_id: str,
        *,
        turn_id: str | None,
        cursor: str | None,
        limit: int,
        direction: SortDirection,
    ) -> Page[ItemRecord]:
        """A page of the thread's items (or one turn's) by ordinal; InvalidCursor when foreign."""
        scope = f"items:{thread_id}"
        after = decode_cursor(cursor, scope) if cursor else None
        limit = clamp_limit(limit)
        thread = self._threads.get(thread_id)
        items = [i for i in (thread.items.values() if thread else []) if turn_id in (None, i.turn_id)]
        rows = _rows_after(items, item_position, after, limit + 1, direction == "desc")
        return make_page(rows, limit=limit, scope=scope, cursor=cursor, position_of=item_position)

    async def read_events(self, thread_id: str, after_seq: int, limit: int = 10_000) -> list[EventRecord]:
        thread = self._threads.get(thread_id)
        if thread is None:
            return []
        seqs = sorted(n for n in thread.events if n > after_seq)[: max(0, limit)]
        return [copy.deepcopy(thread.events[n]) for n in seqs]

    async def last_event(self, thread_id: str, method: str) -> EventRecord | None:
        thread = self._threads.get(thread_id)
        if thread is None:
            return None
        last = max((n for n, e in thread.events.items() if e.method == method), default=None)
        return None if last is None else copy.deepcopy(thread.events[last])

    async def set_archived(self, thread_id: str, archived: bool, at: int) -> bool:
        """Set the archived flag (and updated_at); False when the thread does not exist."""
        thread = self._threads.get(thread_id)
        if thread is not None:
            thread.record.archived, thread.record.updated_at = archived, at
        return thread is not None

    async def set_name(self, thread_id: str, name: str | None, at: int) -> bool:
        """Set or clear the name (and updated_at); False when the thread does not exist."""
        thread = self._threads.get(thread_id)
        if thread is not None:
            thread.record.name, thread.record.updated_at = name, at
        return thread is not None

    async def read_states(self, thread_ids: Sequence[str]) -> dict[str, ReadState]:
        """The marker of each existing thread."""
        return {tid: self._threads[tid].read_state for tid in thread_ids if tid in self._threads}

    async def set_read_state(
        self, thread_id: str, first_unread: dict[str, Any] | None, *, expected: str, revision: str
    ) -> ReadState | None:
        """Compare-and-set the marker."""
        thread = self._threads.get(thread_id)
        if thread is None:
            return None
        if thread.read_state.revision == expected:
            thread.read_state = ReadState(copy.deepcopy(first_unread), revision)
        return thread.read_state

    async def get_goal(self, thread_id: str) -> dict[str, Any] | None:
        """The thread's goal (wire JSON), None when it has none."""
        thread = self._threads.get(thread_id)
        return copy.deepcopy(thread.goal) if thread is not None else None

    async def put_goal(self, thread_id: str, goal: dict[str, Any] | None) -> bool:
        """Store or (None) remove the thread's goal; False when the thread does not exist."""
        thread = self._threads.get(thread_id)
        if thread is not None:
            thread.goal = copy.deepcopy(goal)
        return thread is not None

    async def delete_thread(self, thread_id: str) -> bool:
        """Delete the thread with its turns, items, history, events and goal."""
        await self.set_memberships([], remove=[thread_id])
        self.drop_thread_desktop(thread_id)
        return self._threads.pop(thread_id, None) is not None

    async def truncate_before_turn(self, thread_id: str, turn_id: str) -> bool:
        """Drop the turn and everything after it; False when the thread has no such turn."""
        thread = self._threads.get(thread_id)
        if thread is None or turn_id not in thread.turns:
            return False
        cut = thread.turns[turn_id].ordinal
        dropped = {t.turn_id for t in thread.turns.values() if t.ordinal >= cut}
        thread.items = _keep_before(thread.items, dropped, lambda i: (i.turn_id, i.ordinal))
        thread.history = _keep_before(thread.history, dropped, lambda h: (h.turn_id, h.ordinal))
        thread.turns = {k: t for k, t in thread.turns.items() if t.turn_id not in dropped}
        return True

    async def interrupt_in_progress(self, now: int) -> list[tuple[str, str]]:
        """Close turns a crash left `inProgress` as `interrupted` at `now`; (thread, turn) pairs."""
        hit: list[TurnRecord] = []
        for thread in self._threads.values():
            hit.extend(t for t in thread.turns.values() if t.status == "inProgress")
        for turn in hit:
            turn.status, turn.completed_at = "interrupted", now
        hit.sort(key=lambda t: (t.thread_id, t.ordinal, t.turn_id))
        return [(t.thread_id, t.turn_id) for t in hit]


K = TypeVar("K")


def _keep_before(
    rows: dict[K, R], dropped: set[str], turn_and_ordinal: Callable[[R], tuple[str, int]]
) -> dict[K, R]:
    """Rows of kept turns that also precede the first row of any dropped turn."""
    firsts = [n for tid, n in map(turn_and_ordinal, rows.values()) if tid in dropped]
    cut = min(firsts, default=None)

    def keep(row: R) -> bool:
        tid, ordinal = turn_and_ordinal(row)
        return tid not in dropped and (cut is None or ordinal < cut)

    return {k: r for k, r in rows.items() if keep(r)}
