"""Wire views of stored threads: the `Thread` and `Turn` models, and the session response around them."""

from __future__ import annotations

from typing import Any, TypeVar

from tether_protocol import CODEX_PROTOCOL_VERSION
from tether_protocol.v2 import thread_history as th
from tether_protocol.v2.thread import Thread, ThreadEnvironment, ThreadStatusNotLoaded
from tether_protocol.v2.thread_lifecycle import ThreadSessionResponse
from tether_protocol.v2.turn import Turn, TurnItemsView
from tether_server.core.settings import TurnSettings
from tether_server.store.base import ReadState, ThreadRecord, TurnRecord
from tether_server.store.sources import spawn_info

S = TypeVar("S", bound=ThreadSessionResponse)


def thread_view(
    record: ThreadRecord,
    *,
    status: dict[str, Any] | None,
    loaded: bool,
    ephemeral: bool = False,
    turns: list[Turn] | None = None,
) -> Thread:
    """The `Thread` of a stored record; `status` None means not loaded."""
    environments = (
        [ThreadEnvironment(environment_id="local", cwd=record.cwd, runtime_workspace_roots=[record.cwd])]
        if loaded
        else None
    )
    if loaded and (record.settings or {}).get("noEnvironment"):
        environments = []  # its last turn chose none (Codex then shows `environments: []`)
    return Thread.model_validate(
        {
            "id": record.id,
            "session_id": record.id,
            "forked_from_id": record.forked_from_id,
            "preview": record.preview,
            "ephemeral": ephemeral,
            "history_mode": "paginated",
            "model_provider": record.model_provider,
            "model": record.model,
            "reasoning_effort": (record.settings or {}).get("effort"),
            "created_at": record.created_at,
            "updated_at": record.updated_at,
            "recency_at": record.recency_at,
            "status": status or ThreadStatusNotLoaded(),
            "cwd": record.cwd,
            "cli_version": record.cli_version or CODEX_PROTOCOL_VERSION,
            "originator": record.originator,
            **_source_fields(record.source),
            "git_info": record.git_info,
            "name": record.name,
            "turns": turns or [],
            "environments": environments,
            "can_accept_direct_input": True if loaded else None,
        }
    )


def _source_fields(source: str) -> dict[str, Any]:
    """`source` and, for a thread spawned as a sub-agent, its parent, nickname and role."""
    spawn = spawn_info(source)
    if spawn is None:
        return {"source": source}
    return {
        "source": {"sub_agent": {"thread_spawn": spawn}},
        "parent_thread_id": spawn.get("parent_thread_id"),
        "thread_source": "subagent",
        "agent_nickname": spawn.get("agent_nickname"),
        "agent_role": spawn.get("agent_role"),
    }


def session_response(cls: type[S], thread: Thread, settings: TurnSettings, **extra: Any) -> S:
    """A start/resume/fork response: the thread and the settings its turns run with."""
    policy = settings.sandbox_policy
    profile = {"id": ":read-only", "extends": None} if policy.get("type") == "readOnly" else None
    return cls.model_validate(
        {
            "thread": thread,
            "model": settings.model,
            "model_provider": settings.model_provider,
            "service_tier": settings.service_tier,
            "cwd": settings.cwd,
            "approval_policy": settings.approval_policy,
            "approvals_reviewer": settings.approvals_reviewer,
            "sandbox": policy,
            "reasoning_effort": settings.effort,
            "runtime_workspace_roots": [settings.cwd],
            "active_permission_profile": profile,
            "multi_agent_mode": "explicitRequestOnly",
            "disabled_plugin_ids": list(settings.disabled_plugin_ids),
            **extra,
        }
    )


def turn_view(
    record: TurnRecord, items: list[dict[str, Any]] | None = None, view: TurnItemsView = "notLoaded"
) -> Turn:
    """The `Turn` of a stored turn with (some of) its stored items."""
    return Turn.model_validate(
        {
            "id": record.turn_id,
            "root_turn_id": record.turn_id,
            "items": items or [],
            "items_view": view,
            "status": record.status,
            "error": record.error,
            "started_at": record.started_at,
            "completed_at": record.completed_at,
            "duration_ms": record.duration_ms,
        }
    )


def wire_read_state(stored: ReadState) -> th.ThreadReadState:
    """A stored read marker as the wire's `ThreadReadState`."""
    return th.ThreadReadState.model_validate(
        {"firstUnread": stored.first_unread, "revision": stored.revision}
    )
