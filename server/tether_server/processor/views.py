"""Wire views of threads (the `Thread` object and the session response around it)."""

from __future__ import annotations

from typing import Any

from tether_protocol import CODEX_PROTOCOL_VERSION
from tether_server.core.settings import TurnSettings
from tether_server.store.base import ThreadRecord

NOT_LOADED = {"type": "notLoaded"}


def thread_json(
    record: ThreadRecord,
    *,
    status: dict[str, Any] | None,
    loaded: bool,
    ephemeral: bool = False,
    turns: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    environments = (
        [{"environmentId": "local", "cwd": record.cwd, "runtimeWorkspaceRoots": [record.cwd]}]
        if loaded
        else None
    )
    return {
        "id": record.id,
        "sessionId": record.id,
        "forkedFromId": record.forked_from_id,
        "parentThreadId": None,
        "preview": record.preview,
        "ephemeral": ephemeral,
        "section": None,
        "sectionEnteredAt": None,
        "projectId": None,
        "historyMode": "paginated",
        "modelProvider": record.model_provider,
        "model": record.model,
        "reasoningEffort": (record.settings or {}).get("effort"),
        "createdAt": record.created_at,
        "updatedAt": record.updated_at,
        "recencyAt": record.recency_at,
        "status": status or NOT_LOADED,
        "path": None,
        "cwd": record.cwd,
        "cliVersion": record.cli_version or CODEX_PROTOCOL_VERSION,
        "originator": record.originator,
        "source": record.source,
        "threadSource": None,
        "agentNickname": None,
        "agentRole": None,
        "gitInfo": record.git_info,
        "name": record.name,
        "turns": turns or [],
        "environments": environments,
        "extra": None,
        "attachedToThreadId": None,
        "canAcceptDirectInput": True if loaded else None,
        "daybreakEnabled": None,
    }


def session_response(thread: dict[str, Any], settings: TurnSettings) -> dict[str, Any]:
    policy = settings.sandbox_policy
    profile = {"id": ":read-only", "extends": None} if policy.get("type") == "readOnly" else None
    return {
        "thread": thread,
        "model": settings.model,
        "modelProvider": settings.model_provider,
        "serviceTier": settings.service_tier,
        "disabledPluginIds": [],
        "cwd": settings.cwd,
        "instructionSources": [],
        "approvalPolicy": settings.approval_policy,
        "approvalsReviewer": settings.approvals_reviewer,
        "sandbox": policy,
        "reasoningEffort": settings.effort,
        "runtimeWorkspaceRoots": [settings.cwd],
        "activePermissionProfile": profile,
        "multiAgentMode": "explicitRequestOnly",
    }


def turn_json(
    record: Any, items: list[dict[str, Any]] | None = None, view: str = "notLoaded"
) -> dict[str, Any]:
    return {
        "id": record.turn_id,
        "rootTurnId": record.turn_id,
        "items": items or [],
        "itemsView": view,
        "status": record.status,
        "error": record.error,
        "startedAt": record.started_at,
        "completedAt": record.completed_at,
        "durationMs": record.duration_ms,
    }
