"""Small builders for store records used by the store tests."""

from __future__ import annotations

from typing import Any

from tether_server.store.base import (
    Batch,
    EventRecord,
    HistoryRecord,
    ItemRecord,
    ThreadRecord,
    ThreadStore,
    TurnRecord,
)


def thread(thread_id: str, created: int = 100, **fields: Any) -> ThreadRecord:
    values: dict[str, Any] = {
        "created_at": created,
        "updated_at": created,
        "recency_at": created,
        "cwd": "/work/project",
        "model": "gpt-test",
        "model_provider": "openai",
        "preview": f"first question of {thread_id}",
    }
    values.update(fields)
    return ThreadRecord(id=thread_id, **values)


def turn(thread_id: str, ordinal: int, status: str = "completed") -> TurnRecord:
    return TurnRecord(thread_id, f"{thread_id}:turn{ordinal}", ordinal, status, started_at=1000 + ordinal)


def user_item(thread_id: str, turn_id: str, ordinal: int, text: str) -> ItemRecord:
    item = {
        "type": "userMessage",
        "id": f"u{ordinal}",
        "clientId": None,
        "content": [{"type": "text", "text": text}],
    }
    return ItemRecord(thread_id, turn_id, f"u{ordinal}", ordinal, item, started_at_ms=5, completed_at_ms=6)


def agent_item(thread_id: str, turn_id: str, ordinal: int, text: str) -> ItemRecord:
    item = {"type": "agentMessage", "id": f"msg{ordinal}", "text": text, "phase": None}
    return ItemRecord(thread_id, turn_id, f"msg{ordinal}", ordinal, item)


def history(thread_id: str, turn_id: str, ordinal: int) -> HistoryRecord:
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": f"h{ordinal}"}]}
    return HistoryRecord(thread_id, turn_id, ordinal, item)


def event(thread_id: str, seq: int, method: str = "item/completed") -> EventRecord:
    return EventRecord(thread_id, seq, method, {"threadId": thread_id, "n": seq}, emitted_at_ms=1_000 + seq)


def conversation(thread_id: str, turns: int, created: int = 100) -> Batch:
    """A thread with `turns` turns, each a user and an agent message, history and two events."""
    batch = Batch(thread=thread(thread_id, created))
    for n in range(turns):
        t = turn(thread_id, n)
        batch.turns.append(t)
        batch.items.append(user_item(thread_id, t.turn_id, 2 * n, f"question {n}"))
        batch.items.append(agent_item(thread_id, t.turn_id, 2 * n + 1, f"answer {n}"))
        batch.history.append(history(thread_id, t.turn_id, n))
        batch.events.extend([event(thread_id, 2 * n + 1, "turn/started"), event(thread_id, 2 * n + 2)])
    return batch


async def commit_threads(store: ThreadStore, records: list[ThreadRecord]) -> None:
    for record in records:
        await store.commit(Batch(thread=record))
