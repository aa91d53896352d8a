"""`review/start`: a code review as a turn of the thread (not `review.py`, the approval reviewer).

The turn shows `enteredReviewMode` (labelled with the target), asks the model once, in a context of
its own (our review instructions and the request with the diff, not the thread's history), for a
JSON answer in `OUTPUT_SCHEMA`, then shows `exitedReviewMode` and an agent message with the
findings rendered as text. The thread's history keeps the request label and that text, so the
next turn can act on the findings.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

from tether_server.core import context
from tether_server.core import events as ev
from tether_server.core.ids import now_ms, uuid7
from tether_server.core.items import AgentMessage, ReviewMode
from tether_server.core.model_answer import read_answer
from tether_server.providers.base import ModelRequest, TokenUsage

if TYPE_CHECKING:
    from tether_server.core.turn_scope import ActiveTurn, WorkScope

_LOCATION = {
    "type": "object",
    "additionalProperties": False,
    "required": ["absolute_file_path", "line_range"],
    "properties": {
        "absolute_file_path": {"type": "string"},
        "line_range": {
            "type": "object",
            "additionalProperties": False,
            "required": ["start", "end"],
            "properties": {"start": {"type": "integer"}, "end": {"type": "integer"}},
        },
    },
}
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["findings", "overall_correctness", "overall_explanation", "overall_confidence_score"],
    "properties": {
        "findings": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["title", "body", "confidence_score", "priority", "code_location"],
                "properties": {
                    "title": {"type": "string"},
                    "body": {"type": "string"},
                    "confidence_score": {"type": "number"},
                    "priority": {"type": ["integer", "null"]},
                    "code_location": _LOCATION,
                },
            },
        },
        "overall_correctness": {"type": "string", "enum": ["patch is correct", "patch is incorrect"]},
        "overall_explanation": {"type": "string"},
        "overall_confidence_score": {"type": "number"},
    },
}
INTERRUPTED = "Review interrupted."


@dataclass(frozen=True)
class ReviewJob:
    """What to review: `label` for the items, `request` (with the diff) for the model."""

    label: str
    request: str


def instructions() -> str:
    return (
        resources.files("tether_server.core").joinpath("prompts/review_mode.md").read_text(encoding="utf-8")
    )


def render(answer: str) -> str:
    """The review as the user reads it; an answer that is not the expected JSON is shown as is."""
    try:
        data = json.loads(answer)
    except ValueError:
        return answer.strip()
    if not isinstance(data, dict):
        return answer.strip()
    lines = [str(data.get("overall_explanation") or "").strip()]
    findings = [f for f in data.get("findings") or [] if isinstance(f, dict)]
    if findings:
        lines += ["", "Review comment:" if len(findings) == 1 else "Review comments:", ""]
        for finding in findings:
            lines.append(f"- {finding.get('title', '')}{_where(finding.get('code_location'))}")
            body = str(finding.get("body") or "").strip()
            lines += [f"  {line}" for line in body.splitlines()]
    return "\n".join(lines).strip()


def _where(location: Any) -> str:
    if not isinstance(location, dict) or not location.get("absolute_file_path"):
        return ""
    span = location.get("line_range") or {}
    start, end = span.get("start"), span.get("end")
    lines = "" if start is None else f":{start}" if end in (None, start) else f":{start}-{end}"
    return f" — {location['absolute_file_path']}{lines}"


async def _ask_model(session: WorkScope, turn_id: str, job: ReviewJob) -> str:
    settings = session.settings
    request = ModelRequest(
        model=settings.model,
        instructions=instructions(),
        input=[context.text_message("user", job.request)],
        tools=[],
        text={
            "format": {"type": "json_schema", "strict": True, "schema": OUTPUT_SCHEMA, "name": "code_review"}
        },
        prompt_cache_key=session.thread_id,
        headers={"session_id": session.thread_id},
    )

    async def count(used: TokenUsage) -> None:
        usage = session.usage
        usage.add(used)
        await session.sink.emit(
            ev.TokenUsageUpdated(session.thread_id, turn_id, usage.total, usage.last, usage.context_window)
        )

    return await read_answer(session.deps.provider_for(settings.model_provider).stream(request), count)


async def _show(session: WorkScope, turn: ActiveTurn, item: ReviewMode | AgentMessage) -> None:
    await session.sink.emit(ev.ItemStarted(session.thread_id, turn.id, item))
    item.completed_at_ms = now_ms()
    session.recorder.item(turn.id, item)
    await session.sink.emit(ev.ItemCompleted(session.thread_id, turn.id, item))


async def run_in_turn(session: WorkScope, turn: ActiveTurn, job: ReviewJob) -> AgentMessage:
    """The review turn's work; returns the agent message holding the rendered review."""
    recorder = session.recorder
    await _show(session, turn, ReviewMode(uuid7(), "enteredReviewMode", job.label, now_ms()))
    if not recorder.record.preview:
        recorder.record.preview = job.label[:400]
        recorder.thread_changed()
    try:
        text = render(await _ask_model(session, turn.id, job)) or "The review produced no output."
    except asyncio.CancelledError:
        await _show(session, turn, ReviewMode(uuid7(), "exitedReviewMode", INTERRUPTED, now_ms()))
        raise
    await _show(session, turn, ReviewMode(uuid7(), "exitedReviewMode", text, now_ms()))
    message = AgentMessage(uuid7(), text, now_ms())
    await _show(session, turn, message)
    recorder.history_entry(turn.id, context.text_message("user", f"Code review requested: {job.label}"))
    recorder.history_entry(turn.id, context.text_message("assistant", text))
    return message
