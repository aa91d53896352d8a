"""The wire JSON of live items and turns, for the projection's notifications and for the store.

Built as dicts in the protocol models' key order (`ThreadItem`, `Turn`); see projection.py for why
not through the models.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tether_server.core import items as it

Params = dict[str, Any]


def item_json(item: it.ThreadItem) -> Params:
    """An item's `ThreadItem` JSON: in notifications, and as the store keeps it."""
    return _ITEMS[type(item)](item)


def _user_message(i: it.UserMessage) -> Params:
    return {
        "type": "userMessage",
        "id": i.id,
        "clientId": i.client_id,
        "content": i.content,
        "startedAtMs": i.started_at_ms,
        "completedAtMs": i.completed_at_ms,
    }


def _agent_message(i: it.AgentMessage) -> Params:
    return {
        "type": "agentMessage",
        "id": i.id,
        "text": i.text,
        "phase": i.phase,
        "moderation": None,
        "memoryCitation": None,
        "delivery": None,
        "questions": None,
        "startedAtMs": i.started_at_ms,
        "completedAtMs": i.completed_at_ms,
    }


def _reasoning(i: it.Reasoning) -> Params:
    return {
        "type": "reasoning",
        "id": i.id,
        "summary": list(i.summary),
        "content": list(i.content),
        "startedAtMs": i.started_at_ms,
        "completedAtMs": i.completed_at_ms,
    }


def _plan_item(i: it.Plan) -> Params:
    return {
        "type": "plan",
        "id": i.id,
        "text": i.text,
        "startedAtMs": i.started_at_ms,
        "completedAtMs": i.completed_at_ms,
    }


def _command(i: it.CommandExecution) -> Params:
    return {
        "type": "commandExecution",
        "id": i.id,
        "command": i.command,
        "cwd": i.cwd,
        "processId": i.process_id,
        "source": i.source,
        "status": i.status,
        "commandActions": i.command_actions,
        "aggregatedOutput": i.aggregated_output,
        "exitCode": i.exit_code,
        "durationMs": i.duration_ms,
        "pluginId": None,
        "scriptPath": None,
        "startedAtMs": i.started_at_ms,
        "completedAtMs": i.completed_at_ms,
    }


def _file_change(i: it.FileChange) -> Params:
    return {
        "type": "fileChange",
        "id": i.id,
        "changes": i.changes,
        "status": i.status,
        "startedAtMs": i.started_at_ms,
        "completedAtMs": i.completed_at_ms,
    }


def _compaction(i: it.ContextCompaction) -> Params:
    return {
        "type": "contextCompaction",
        "id": i.id,
        "startedAtMs": i.started_at_ms,
        "completedAtMs": i.completed_at_ms,
    }


def _review_mode(i: it.ReviewMode) -> Params:
    return {
        "type": i.kind,
        "id": i.id,
        "review": i.review,
        "startedAtMs": i.started_at_ms,
        "completedAtMs": i.completed_at_ms,
    }


def _web_search(i: it.WebSearch) -> Params:
    return {
        "type": "webSearch",
        "id": i.id,
        "query": i.query,
        "action": i.action,
        "results": None,
        "startedAtMs": i.started_at_ms,
        "completedAtMs": i.completed_at_ms,
    }


def _mcp_call(i: it.McpToolCall) -> Params:
    return {
        "type": "mcpToolCall",
        "id": i.id,
        "server": i.server,
        "tool": i.tool,
        "status": i.status,
        "arguments": i.arguments,
        "result": i.result,
        "error": {"message": i.error} if i.error is not None else None,
        "durationMs": i.duration_ms,
        "appContext": None,
        "mcpAppUi": None,
        "pluginId": None,
        "readOnlyHint": i.read_only,
        "mcpAppResourceUri": None,
        "startedAtMs": i.started_at_ms,
        "completedAtMs": i.completed_at_ms,
    }


def _dynamic_call(i: it.DynamicToolCall) -> Params:
    return {
        "type": "dynamicToolCall",
        "id": i.id,
        "namespace": i.namespace,
        "tool": i.tool,
        "arguments": i.arguments,
        "status": i.status,
        "contentItems": i.content_items,
        "success": i.success,
        "durationMs": i.duration_ms,
        "startedAtMs": i.started_at_ms,
        "completedAtMs": i.completed_at_ms,
    }


def _image_view(i: it.ImageView) -> Params:
    return {
        "type": "imageView",
        "id": i.id,
        "path": i.path,
        "startedAtMs": i.started_at_ms,
        "completedAtMs": i.completed_at_ms,
    }


def _hook_prompt(i: it.HookPrompt) -> Params:
    return {
        "type": "hookPrompt",
        "id": i.id,
        "fragments": [{"text": text, "hookRunId": run_id} for run_id, text in i.fragments],
        "startedAtMs": i.started_at_ms,
        "completedAtMs": i.completed_at_ms,
    }


def _collab_call(i: it.CollabAgentToolCall) -> Params:
    return {
        "type": "collabAgentToolCall",
        "id": i.id,
        "tool": i.tool,
        "status": i.status,
        "senderThreadId": i.sender_thread_id,
        "receiverThreadIds": list(i.receiver_thread_ids),
        "prompt": i.prompt,
        "model": i.model,
        "reasoningEffort": i.reasoning_effort,
        "agentsStates": dict(i.agents_states),
        "startedAtMs": i.started_at_ms,
        "completedAtMs": i.completed_at_ms,
    }


_ITEMS: dict[type[Any], Callable[[Any], Params]] = {
    it.UserMessage: _user_message,
    it.AgentMessage: _agent_message,
    it.Reasoning: _reasoning,
    it.Plan: _plan_item,
    it.CommandExecution: _command,
    it.FileChange: _file_change,
    it.ContextCompaction: _compaction,
    it.ReviewMode: _review_mode,
    it.WebSearch: _web_search,
    it.McpToolCall: _mcp_call,
    it.DynamicToolCall: _dynamic_call,
    it.ImageView: _image_view,
    it.CollabAgentToolCall: _collab_call,
    it.HookPrompt: _hook_prompt,
}


def turn_json(
    turn_id: str,
    status: str,
    *,
    started_at: int | None,
    completed_at: int | None = None,
    duration_ms: int | None = None,
    error: Params | None = None,
    items: list[Params] | None = None,
    items_view: str = "notLoaded",
) -> Params:
    """A live turn's `Turn` JSON (`processor/views.py` renders stored ones)."""
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
