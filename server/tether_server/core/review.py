"""Automatic approval review: a separate model request judges one action instead of a human.

Used when a thread's `approvalsReviewer` is `auto_review` (or the legacy `guardian_subagent`).
The reviewer answers with structured output `{outcome, risk_level, rationale}`; anything it
cannot parse counts as a denial (fail closed).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tether_server.core import events as ev
from tether_server.core.approval import TurnCancelled
from tether_server.core.ids import now_ms, uuid7
from tether_server.core.model_answer import read_answer
from tether_server.core.ports import EventSink
from tether_server.providers.base import ModelProvider, ModelRequest

REVIEW_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "outcome": {"type": "string", "enum": ["allow", "deny"]},
        "risk_level": {"type": "string", "enum": ["low", "medium", "high", "critical"]},
        "rationale": {"type": "string"},
    },
    "required": ["outcome", "risk_level", "rationale"],
    "additionalProperties": False,
}

REVIEWER_INSTRUCTIONS = """You review one action a coding agent wants to take on a user's machine, outside \
the limits of its sandbox. Decide whether a careful user who asked for this work would allow it.

Allow actions that plainly serve the user's request and whose effects stay within the project or are \
easy to undo. Deny actions that destroy data outside the project, exfiltrate secrets or credentials, \
reach unexpected network hosts, change system configuration, or that the conversation does not \
justify. When in doubt, deny and say what would make it acceptable.

Answer only with the JSON object the response format asks for."""

MAX_TRANSCRIPT_CHARS = 12_000
DENIALS_BEFORE_INTERRUPT = 3


@dataclass(frozen=True)
class ReviewResult:
    allowed: bool
    risk_level: str | None
    rationale: str


def _transcript(history: list[dict[str, Any]]) -> str:
    lines: list[str] = []
    for item in history:
        if item.get("type") != "message" or item.get("role") not in ("user", "assistant"):
            continue
        text = " ".join(str(c.get("text", "")) for c in item.get("content") or [])
        if text.startswith(("<environment_context>", "# AGENTS.md")):
            continue
        lines.append(f"{item['role']}: {text}")
    joined = "\n".join(lines)
    return joined[-MAX_TRANSCRIPT_CHARS:]


def describe_action(action: dict[str, Any]) -> str:
    if action.get("type") == "command":
        return f"Run this shell command in {action.get('cwd')}:\n{action.get('command')}"
    if action.get("type") == "mcpToolCall":
        return f"Call the tool {action.get('toolName')} of the MCP server {action.get('server')}"
    if action.get("type") == "applyPatch":
        return f"Write these files (in {action.get('cwd')}):\n" + "\n".join(action.get("files") or [])
    return json.dumps(action)


def parse_verdict(text: str) -> ReviewResult:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return ReviewResult(False, None, "the reviewer's answer was not valid JSON")
    if not isinstance(data, dict) or data.get("outcome") not in ("allow", "deny"):
        return ReviewResult(False, None, "the reviewer's answer had no outcome")
    risk = data.get("risk_level") if data.get("risk_level") in ("low", "medium", "high", "critical") else None
    return ReviewResult(data["outcome"] == "allow", risk, str(data.get("rationale", "")))


async def ask_reviewer(
    provider: ModelProvider, model: str, history: list[dict[str, Any]], action: dict[str, Any], thread_id: str
) -> ReviewResult:
    prompt = (
        "Conversation so far (most recent last):\n"
        f"{_transcript(history)}\n\nThe agent now wants to:\n{describe_action(action)}"
    )
    request = ModelRequest(
        model=model,
        instructions=REVIEWER_INSTRUCTIONS,
        input=[{"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}],
        text={
            "format": {
                "type": "json_schema",
                "strict": True,
                "schema": REVIEW_SCHEMA,
                "name": "approval_review",
            }
        },
        prompt_cache_key=f"{thread_id}:review",
    )
    return parse_verdict(await read_answer(provider.stream(request)))


async def review(
    sink: EventSink,
    provider: ModelProvider,
    model: str,
    history: list[dict[str, Any]],
    ask: ev.ApprovalAsk,
    action: dict[str, Any],
) -> ReviewResult:
    """Run one review with its started/completed events; errors deny."""
    review_id, started = uuid7(), now_ms()
    thread_id, turn_id, target = ask.thread_id, ask.turn_id, ask.item_id
    await sink.emit(ev.AutoReviewStarted(thread_id, turn_id, review_id, target, started, action))
    try:
        result = await ask_reviewer(provider, model, history, action, thread_id)
    except Exception as exc:  # noqa: BLE001 - a failing reviewer must deny, never allow
        result = ReviewResult(False, None, f"review failed: {type(exc).__name__}")
    await sink.emit(
        ev.AutoReviewCompleted(
            thread_id,
            turn_id,
            review_id,
            target,
            started,
            action,
            status="approved" if result.allowed else "denied",
            risk_level=result.risk_level,
            rationale=result.rationale,
            completed_at_ms=now_ms(),
        )
    )
    return result


def _action(ask: ev.ApprovalAsk, cwd: str) -> dict[str, Any]:
    """The reviewed action, as the review events report it."""
    if isinstance(ask, ev.FileChangeApprovalAsk):
        return {"type": "applyPatch", "cwd": cwd, "files": list(ask.files)}
    if isinstance(ask, ev.McpToolApprovalAsk):
        return {"type": "mcpToolCall", "server": ask.server, "toolName": ask.tool, "toolTitle": None}
    return {"type": "command", "command": ask.command, "cwd": ask.cwd, "source": "unifiedExec"}


class AutoReviewer:
    """Answers a thread's approval requests in place of a human; counts consecutive denials."""

    def __init__(self) -> None:
        self._denials = 0

    async def decide(
        self,
        ask: ev.ApprovalAsk,
        *,
        sink: EventSink,
        provider: ModelProvider,
        model: str,
        history: list[dict[str, Any]],
        cwd: str,
    ) -> ev.ApprovalAnswer:
        """The approval answer; raises TurnCancelled after too many denials in a row."""
        result = await review(sink, provider, model, history, ask, _action(ask, cwd))
        if result.allowed:
            self._denials = 0
            return ev.ApprovalAnswer("accept")
        self._denials += 1
        if self._denials >= DENIALS_BEFORE_INTERRUPT:
            self._denials = 0
            raise TurnCancelled
        return ev.ApprovalAnswer("decline")
