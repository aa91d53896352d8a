"""A thread's items as the core builds them: typed, filled in as the work goes on.

The processor (`processor/items_json.py`) gives each its wire JSON, both for the notifications and
for the store (injected as `SessionDeps.item_json`). Payloads that come from the
client or from a tool as JSON already (user input, command actions, file changes) stay JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Json = dict[str, Any]


@dataclass(slots=True)
class UserMessage:
    id: str
    content: list[Json]  # the client's UserInput entries, as sent
    client_id: str | None
    started_at_ms: int
    completed_at_ms: int | None = None


@dataclass(slots=True)
class AgentMessage:
    id: str
    text: str
    started_at_ms: int
    phase: str | None = None
    completed_at_ms: int | None = None


@dataclass(slots=True)
class Reasoning:
    id: str
    started_at_ms: int
    summary: list[str] = field(default_factory=list)
    content: list[str] = field(default_factory=list)
    completed_at_ms: int | None = None


@dataclass(slots=True)
class Plan:
    id: str
    text: str
    started_at_ms: int
    completed_at_ms: int | None = None


@dataclass(slots=True)
class CommandExecution:
    id: str
    command: str
    cwd: str
    command_actions: list[Json]
    started_at_ms: int
    source: str = "agent"  # agent | userShell
    status: str = "inProgress"  # inProgress | completed | failed | declined
    process_id: str | None = None
    aggregated_output: str | None = None
    exit_code: int | None = None
    duration_ms: int | None = None
    completed_at_ms: int | None = None


@dataclass(slots=True)
class FileChange:
    id: str
    changes: list[Json]
    started_at_ms: int
    status: str = "inProgress"  # inProgress | completed | failed | declined
    completed_at_ms: int | None = None


@dataclass(slots=True)
class ContextCompaction:
    id: str
    started_at_ms: int
    completed_at_ms: int | None = None


@dataclass(slots=True)
class ReviewMode:
    """`enteredReviewMode` (the review's label) or `exitedReviewMode` (the review's text)."""

    id: str
    kind: str  # enteredReviewMode | exitedReviewMode
    review: str
    started_at_ms: int
    completed_at_ms: int | None = None


@dataclass(slots=True)
class WebSearch:
    """A search the provider's hosted `web_search` tool ran; `action` is its wire JSON."""

    id: str
    started_at_ms: int
    query: str = ""
    action: Json | None = None
    completed_at_ms: int | None = None


@dataclass(slots=True)
class McpToolCall:
    id: str
    server: str
    tool: str
    arguments: Any
    started_at_ms: int
    status: str = "inProgress"  # inProgress | completed | failed
    result: Json | None = None  # {content, structuredContent, _meta}
    error: str | None = None
    duration_ms: int | None = None
    read_only: bool | None = None
    completed_at_ms: int | None = None


@dataclass(slots=True)
class DynamicToolCall:
    id: str
    namespace: str | None
    tool: str
    arguments: Any
    started_at_ms: int
    status: str = "inProgress"  # inProgress | completed | failed
    content_items: list[Json] | None = None
    success: bool | None = None
    duration_ms: int | None = None
    completed_at_ms: int | None = None


@dataclass(slots=True)
class ImageView:
    """An image the model looked at with `view_image`; `id` is the call's id, `path` absolute."""

    id: str
    path: str
    started_at_ms: int
    completed_at_ms: int | None = None


@dataclass(slots=True)
class HookPrompt:
    """Stop hooks' reasons to go on, each `(hook run id, text)`; the model reads them as a prompt."""

    id: str
    fragments: list[tuple[str, str]]
    started_at_ms: int
    completed_at_ms: int | None = None


@dataclass(slots=True)
class CollabAgentToolCall:
    """A call of a sub-agent tool (spawn, wait, close, send input); `id` is the call's id."""

    id: str
    tool: str  # spawnAgent | sendInput | wait | closeAgent
    sender_thread_id: str
    started_at_ms: int
    receiver_thread_ids: list[str] = field(default_factory=list)
    status: str = "inProgress"  # inProgress | completed | failed
    prompt: str | None = None
    model: str | None = None
    reasoning_effort: str | None = None
    agents_states: dict[str, Json] = field(default_factory=dict)  # id → {status, message}
    completed_at_ms: int | None = None


ThreadItem = (
    UserMessage
    | HookPrompt
    | AgentMessage
    | Reasoning
    | Plan
    | CommandExecution
    | FileChange
    | ContextCompaction
    | ReviewMode
    | WebSearch
    | McpToolCall
    | DynamicToolCall
    | ImageView
    | CollabAgentToolCall
)


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
