"""Builders for wire-shaped ThreadItems and Turns (dicts in the v2 JSON shape).

Core keeps items as plain JSON so that the store and the projection never re-encode models on
the hot path; the reference-schema tests check these shapes.
"""

from __future__ import annotations

from typing import Any


def user_message(
    item_id: str, content: list[dict[str, Any]], client_id: str | None, at_ms: int
) -> dict[str, Any]:
    return {
        "type": "userMessage",
        "id": item_id,
        "clientId": client_id,
        "content": content,
        "startedAtMs": at_ms,
        "completedAtMs": None,
    }


def agent_message(item_id: str, text: str, at_ms: int, phase: str | None = None) -> dict[str, Any]:
    return {
        "type": "agentMessage",
        "id": item_id,
        "text": text,
        "phase": phase,
        "moderation": None,
        "memoryCitation": None,
        "delivery": None,
        "questions": None,
        "startedAtMs": at_ms,
        "completedAtMs": None,
    }


def reasoning(item_id: str, at_ms: int) -> dict[str, Any]:
    return {
        "type": "reasoning",
        "id": item_id,
        "summary": [],
        "content": [],
        "startedAtMs": at_ms,
        "completedAtMs": None,
    }


def plan(item_id: str, text: str, at_ms: int) -> dict[str, Any]:
    return {"type": "plan", "id": item_id, "text": text, "startedAtMs": at_ms, "completedAtMs": None}


def command_execution(
    item_id: str, command: str, cwd: str, actions: list[dict[str, Any]], at_ms: int, source: str = "agent"
) -> dict[str, Any]:
    return {
        "type": "commandExecution",
        "id": item_id,
        "command": command,
        "cwd": cwd,
        "processId": None,
        "source": source,
        "status": "inProgress",
        "commandActions": actions,
        "aggregatedOutput": None,
        "exitCode": None,
        "durationMs": None,
        "pluginId": None,
        "scriptPath": None,
        "startedAtMs": at_ms,
        "completedAtMs": None,
    }


def file_change(item_id: str, changes: list[dict[str, Any]], at_ms: int) -> dict[str, Any]:
    return {
        "type": "fileChange",
        "id": item_id,
        "changes": changes,
        "status": "inProgress",
        "startedAtMs": at_ms,
        "completedAtMs": None,
    }


def turn(
    turn_id: str,
    status: str,
    *,
    started_at: int | None,
    completed_at: int | None = None,
    duration_ms: int | None = None,
    error: dict[str, Any] | None = None,
    items: list[dict[str, Any]] | None = None,
    items_view: str = "notLoaded",
) -> dict[str, Any]:
    return {
        "id": turn_id,
        "rootTurnId": turn_id,
        "items": items or [],
        "itemsView": items_view,
        "status": status,
        "error": error,
        "startedAt": started_at,
        "completedAt": completed_at,
        "durationMs": duration_ms,
    }


def turn_error(message: str, info: Any = "other", details: str | None = None) -> dict[str, Any]:
    return {"message": message, "codexErrorInfo": info, "additionalDetails": details}


def user_input_to_model(content: list[dict[str, Any]]) -> dict[str, Any]:
    """A turn's UserInput list as one Responses `user` message."""
    parts: list[dict[str, Any]] = []
    for entry in content:
        kind = entry.get("type")
        if kind == "text":
            parts.append({"type": "input_text", "text": entry.get("text", "")})
        elif kind == "image" and entry.get("url"):
            parts.append(
                {"type": "input_image", "image_url": entry["url"], "detail": entry.get("detail") or "high"}
            )
        elif kind in ("mention", "skill"):
            parts.append(
                {"type": "input_text", "text": f"[{entry.get('name', '')}]({entry.get('path', '')})"}
            )
        elif kind == "localImage":
            parts.append({"type": "input_text", "text": f"<image path={entry.get('path', '')}>"})
    return {"type": "message", "role": "user", "content": parts}


def text_of(content: list[dict[str, Any]]) -> str:
    return "\n".join(str(e.get("text", "")) for e in content if e.get("type") == "text")
