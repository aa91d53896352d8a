"""The ThreadStore port: what the daemon needs from durable storage.

Records hold wire-shaped JSON (`dict`) for items, errors and settings so that the store does not
depend on the protocol models. Every write of one logical step goes through `commit()` in ONE
transaction, so a crash never leaves half of a step on disk: an item and the event announcing its
completion land together, before the event is sent to any client.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, Protocol, TypeVar

import orjson

from tether_server.errors import InternalError
from tether_server.store.desktop import DesktopStore
from tether_server.store.sections import SectionStore

SortKey = Literal["created_at", "updated_at", "recency_at"]
SortDirection = Literal["asc", "desc"]
T = TypeVar("T")


class StoreError(InternalError):
    """The database cannot be used (corrupt, locked, newer schema, disk full, read-only).

    At startup a clear error; on a request a -32603 carrying this message, and in a turn a
    failed turn saying so, never a bare "Internal error".
    """


class InvalidCursor(ValueError):
    """An opaque cursor that this store did not produce."""


INITIAL_READ_REVISION = "0"


@dataclass(frozen=True)
class ReadState:
    """A thread's read marker: where unread starts (wire `ThreadUnreadPosition`, None = read).

    `revision` changes with every write, so a client can say which state it saw.
    """

    first_unread: dict[str, Any] | None = None
    revision: str = INITIAL_READ_REVISION


@dataclass
class ThreadRecord:
    """Durable thread metadata (one row per thread)."""

    id: str
    created_at: int  # unix seconds
    updated_at: int
    recency_at: int
    cwd: str
    model: str
    model_provider: str
    source: str = "vscode"  # SessionSource; app-server threads record "vscode" like Codex
    cli_version: str = ""
    originator: str = ""
    name: str | None = None
    preview: str = ""  # first user message text; "" until one exists (then listed)
    archived: bool = False
    forked_from_id: str | None = None
    git_info: dict[str, Any] | None = None  # {sha, branch, originUrl}
    settings: dict[str, Any] = field(default_factory=dict)  # approval/sandbox/effort/... as wire JSON
    last_seq: int = 0  # highest event seq committed for this thread


@dataclass
class TurnRecord:
    thread_id: str
    turn_id: str
    ordinal: int  # position in the thread, from 0
    status: str  # inProgress | completed | interrupted | failed
    error: dict[str, Any] | None = None  # wire TurnError
    started_at: int | None = None
    completed_at: int | None = None
    duration_ms: int | None = None


@dataclass
class ItemRecord:
    thread_id: str
    turn_id: str
    item_id: str
    ordinal: int  # position in the thread (all turns), from 0
    item: dict[str, Any]  # wire ThreadItem JSON
    started_at_ms: int | None = None
    completed_at_ms: int | None = None


@dataclass
class EventRecord:
    """A durable notification as it was sent (method + params), with its per-thread seq."""

    thread_id: str
    seq: int
    method: str
    params: dict[str, Any]
    emitted_at_ms: int


@dataclass
class HistoryRecord:
    """One Responses API input item of the model's history, in order."""

    thread_id: str
    turn_id: str
    ordinal: int
    item: dict[str, Any]


@dataclass
class Batch:
    """Everything one step writes; applied atomically by `ThreadStore.commit`."""

    thread: ThreadRecord | None = None  # upsert when set
    turns: list[TurnRecord] = field(default_factory=list)  # upsert by (thread_id, turn_id)
    items: list[ItemRecord] = field(default_factory=list)  # upsert by (thread_id, item_id)
    history: list[HistoryRecord] = field(default_factory=list)  # append
    events: list[EventRecord] = field(default_factory=list)  # append; seq unique per thread


@dataclass
class ThreadQuery:
    limit: int = 50
    cursor: str | None = None
    sort_key: SortKey = "created_at"
    sort_direction: SortDirection = "desc"
    archived: bool = False
    cwds: Sequence[str] | None = None  # exact match on any
    model_providers: Sequence[str] | None = None  # None/empty = all
    sources: Sequence[str] | None = None  # None/empty = all
    search_term: str | None = None  # substring of name/preview, plus full-text match on message text
    exclude_ids: Sequence[str] = ()


@dataclass
class Page(Generic[T]):
    data: list[T]
    next_cursor: str | None = None
    backwards_cursor: str | None = None


@dataclass
class LoadedThread:
    """A thread as needed to load it into memory: metadata, turns, items and model history."""

    record: ThreadRecord
    turns: list[TurnRecord]
    items: list[ItemRecord]
    history: list[HistoryRecord]


class StoredHistory:
    """A loaded thread's model history as the store holds it: one JSON text per entry, in order.

    Parsed the first time a turn needs it (`parse`), not when the thread is opened: most opens
    only show a thread, and parsing the history was about 40% of a 10,000-turn `thread/resume`.
    """

    __slots__ = ("texts",)

    def __init__(self, texts: Sequence[str | bytes]) -> None:
        self.texts = texts

    def __len__(self) -> int:
        return len(self.texts)

    def parse(self) -> list[dict[str, Any]]:
        return [orjson.loads(text) for text in self.texts]

    def __eq__(self, other: object) -> bool:
        # The same entries, however each store spells their JSON.
        return isinstance(other, StoredHistory) and self.parse() == other.parse()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"StoredHistory({self.parse()!r})"


@dataclass
class SessionLoad:
    """What loading a thread into memory needs: its record, its model history (entries in order,
    not parsed yet), and how many turns and items it has (not the turns and items themselves)."""

    record: ThreadRecord
    history: StoredHistory
    turn_count: int
    item_count: int


class ThreadStore(SectionStore, DesktopStore, Protocol):
    async def open(self) -> None:
        """Create or migrate the schema; raises StoreError with a clear message when unusable."""
        ...

    async def close(self) -> None: ...

    async def commit(self, batch: Batch) -> None:
        """Apply a batch in one transaction (durable when this returns)."""
        ...

    async def get_thread(self, thread_id: str) -> ThreadRecord | None: ...

    async def load_thread(self, thread_id: str) -> LoadedThread | None: ...

    async def load_session(self, thread_id: str) -> SessionLoad | None: ...

    async def item_texts(self, thread_id: str) -> list[tuple[str, str]]:
        """Every item of the thread as (turn id, its wire JSON as stored), by ordinal."""
        ...

    async def list_threads(self, query: ThreadQuery) -> Page[ThreadRecord]:
        """Only threads with a non-empty preview are listed (Codex: materialized threads).

        Raises InvalidCursor for a cursor it did not produce.
        """
        ...

    async def list_turns(
        self, thread_id: str, *, cursor: str | None, limit: int, direction: SortDirection
    ) -> Page[TurnRecord]: ...

    async def list_items(
        self,
        thread_id: str,
        *,
        turn_id: str | None,
        cursor: str | None,
        limit: int,
        direction: SortDirection,
    ) -> Page[ItemRecord]: ...

    async def read_events(self, thread_id: str, after_seq: int, limit: int = 10_000) -> list[EventRecord]: ...

    async def last_event(self, thread_id: str, method: str) -> EventRecord | None:
        """The thread's newest stored event of `method` (None: there is none)."""
        ...

    async def set_archived(self, thread_id: str, archived: bool, at: int) -> bool:
        """False when the thread does not exist."""
        ...

    async def set_name(self, thread_id: str, name: str | None, at: int) -> bool: ...

    async def delete_thread(self, thread_id: str) -> bool: ...

    async def truncate_before_turn(self, thread_id: str, turn_id: str) -> bool:
        """Drop the turn and everything after it (turns, items, history); events stay (they happened)."""
        ...

    async def interrupt_in_progress(self, now: int) -> list[tuple[str, str]]:
        """At startup: mark turns left `inProgress` by a crash as `interrupted`; returns (thread, turn)."""
        ...

    async def read_states(self, thread_ids: Sequence[str]) -> dict[str, ReadState]:
        """The read state of each existing thread (never marked: unread nowhere, revision "0")."""
        ...

    async def set_read_state(
        self, thread_id: str, first_unread: dict[str, Any] | None, *, expected: str, revision: str
    ) -> ReadState | None:
        """Compare-and-set: write when the stored revision is `expected`; return the state now stored.

        None when the thread does not exist; the unchanged state when `expected` is stale.
        """
        ...

    async def get_goal(self, thread_id: str) -> dict[str, Any] | None:
        """The thread's goal as wire `ThreadGoal` JSON; None when it has none (or no such thread)."""
        ...

    async def put_goal(self, thread_id: str, goal: dict[str, Any] | None) -> bool:
        """Store the thread's goal, or remove it (None), in one write; False when no such thread."""
        ...
