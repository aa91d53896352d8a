"""A thread's `source` as stored: a `SessionSource` kind (`vscode`, `exec`...) or, for a thread the
model spawned as a sub-agent, Codex's `{"subAgent": {"thread_spawn": {...}}}` as compact JSON.

`thread/list` filters on kinds: a spawned thread is of kind `subAgentThreadSpawn` (and `subAgent`),
and, as on Codex, is left out of a list that names no kind.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

SPAWNED_PREFIX = '{"subAgent":{"thread_spawn":'
SPAWNED_KINDS = frozenset({"subAgent", "subAgentThreadSpawn"})


def spawn_source(parent_id: str, depth: int, nickname: str) -> str:
    """The `source` a child thread is stored with."""
    spawn = {
        "parent_thread_id": parent_id,
        "depth": depth,
        "agent_path": None,
        "agent_nickname": nickname,
        "agent_role": None,
    }
    return json.dumps({"subAgent": {"thread_spawn": spawn}}, separators=(",", ":"))


def spawn_info(source: str) -> dict[str, Any] | None:
    """The `thread_spawn` details of a stored `source`, or None for a thread nobody spawned."""
    if not source.startswith(SPAWNED_PREFIX):
        return None
    try:
        parsed = json.loads(source)
    except json.JSONDecodeError:
        return None
    spawn = parsed.get("subAgent", {}).get("thread_spawn") if isinstance(parsed, dict) else None
    return spawn if isinstance(spawn, dict) else None


def listed(source: str, kinds: Sequence[str] | None) -> bool:
    """Whether a thread of this `source` is in a list filtered on `kinds` (None: the default list)."""
    spawned = source.startswith(SPAWNED_PREFIX)
    if not kinds:
        return not spawned
    return bool(SPAWNED_KINDS.intersection(kinds)) if spawned else source in kinds


def sql_clause(kinds: Sequence[str] | None) -> tuple[str, list[Any]]:
    """`listed` as an SQL condition on the `source` column, and its parameters."""
    spawned = "substr(source, 1, ?) = ?"
    spawned_params: list[Any] = [len(SPAWNED_PREFIX), SPAWNED_PREFIX]
    if not kinds:
        return f"NOT {spawned}", spawned_params
    clause = f"source IN ({', '.join('?' for _ in kinds)})"
    if SPAWNED_KINDS.intersection(kinds):
        return f"({clause} OR {spawned})", [*kinds, *spawned_params]
    return clause, list(kinds)
