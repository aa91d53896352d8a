"""Collaboration modes (default and plan): what the model is told when the mode changes, and the
`request_user_input` tool through which a planning model asks the user questions.

Codex 0.169.0 offers `request_user_input` in both modes and refuses it in default mode: the tool
list then stays the same when the mode changes, and so does the request prefix a cache keys on.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

from tether_server.core import events as ev
from tether_server.core.settings import TurnSettings
from tether_server.core.toolbox import StaticTools, Tool, ToolArgumentError, ToolCall, ToolContext, ToolOutput

PLAN = "plan"
DEFAULT = "default"
REQUEST_USER_INPUT = "request_user_input"
UNAVAILABLE = "request_user_input is unavailable in Default mode"
"""What the model is told when it calls the tool outside plan mode (Codex's words: a fact the
model may have been trained on, not prose)."""

AskUser = Callable[[ev.UserInputAsk], Awaitable[ev.UserInputAnswer]]


@functools.cache
def _prompt(mode: str) -> str:
    name = "plan_mode.md" if mode == PLAN else "default_mode.md"
    return resources.files("tether_server.core").joinpath(f"prompts/{name}").read_text(encoding="utf-8")


def instructions(settings: TurnSettings) -> str:
    """The mode's instructions: the client's own when it gave some, else Tether's for the mode."""
    if settings.collaboration_instructions is not None:
        return settings.collaboration_instructions
    return _prompt(settings.collaboration_mode).strip()


def mode_message(settings: TurnSettings) -> dict[str, Any]:
    text = f"<collaboration_mode>{instructions(settings)}</collaboration_mode>"
    return {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": text}]}


def mode_changed(previous: TurnSettings | None, current: TurnSettings) -> bool:
    """Whether the model must hear about the mode: a thread begins in default mode unannounced."""
    before = (DEFAULT, None) if previous is None else _mode_of(previous)
    return _mode_of(current) != before


def _mode_of(settings: TurnSettings) -> tuple[str, str | None]:
    return settings.collaboration_mode, settings.collaboration_instructions


# ---- request_user_input ------------------------------------------------------------------------------

# The parameters' schema is Codex's (models are trained on it); the descriptions are Tether's.
_OPTION = {
    "type": "object",
    "properties": {
        "description": {"type": "string", "description": "One sentence on what choosing this means."},
        "label": {"type": "string", "description": "The choice as the user sees it (a few words)."},
    },
    "required": ["label", "description"],
    "additionalProperties": False,
}
_QUESTION = {
    "type": "object",
    "properties": {
        "header": {
            "type": "string",
            "description": "A short heading for the question (12 characters at most).",
        },
        "id": {"type": "string", "description": "A snake_case id; the answers are keyed by it."},
        "options": {
            "type": "array",
            "description": (
                'Two or three distinct choices, the recommended one first with "(Recommended)" after '
                'its label. Leave out an "Other" choice: the client always offers a free-form answer.'
            ),
            "items": _OPTION,
        },
        "question": {"type": "string", "description": "The question itself, in one sentence."},
    },
    "required": ["id", "header", "question", "options"],
    "additionalProperties": False,
}
SPEC: dict[str, Any] = {
    "type": "function",
    "name": REQUEST_USER_INPUT,
    "description": (
        "Ask the user one to three short multiple-choice questions and wait for the answers. "
        "Works in plan mode only."
    ),
    "strict": False,
    "parameters": {
        "type": "object",
        "properties": {
            "questions": {
                "type": "array",
                "description": "The questions; one is best, three at most.",
                "items": _QUESTION,
            }
        },
        "required": ["questions"],
        "additionalProperties": False,
    },
}


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ToolArgumentError(f"failed to parse function arguments: `{what}` must be a string")
    return value


def _question(value: Any) -> ev.UserInputQuestion:
    if not isinstance(value, dict):
        raise ToolArgumentError("failed to parse function arguments: each question must be an object")
    options = value.get("options")
    if options is not None and not isinstance(options, list):
        raise ToolArgumentError("failed to parse function arguments: `options` must be an array")
    choices: list[tuple[str, str]] = []
    for option in options or []:
        if not isinstance(option, dict):
            raise ToolArgumentError("failed to parse function arguments: each option must be an object")
        choices.append((_text(option.get("label"), "label"), _text(option.get("description"), "description")))
    return ev.UserInputQuestion(
        _text(value.get("id"), "id"),
        _text(value.get("header"), "header"),
        _text(value.get("question"), "question"),
        tuple(choices) if options is not None else None,
    )


def questions_of(args: dict[str, Any]) -> tuple[ev.UserInputQuestion, ...]:
    questions = args.get("questions")
    if not isinstance(questions, list) or not questions:
        raise ToolArgumentError("failed to parse function arguments: `questions` must be a non-empty array")
    return tuple(_question(q) for q in questions)


def answer_text(answers: dict[str, tuple[str, ...]]) -> str:
    """The answers as the model reads them: the client's response, compact JSON (as Codex sends it)."""
    body = {"answers": {qid: {"answers": list(picked)} for qid, picked in answers.items()}}
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def tool(settings: TurnSettings, ask_user: AskUser | None) -> Tool:
    """`request_user_input` for a turn run with `settings`: it asks the clients in plan mode only."""

    async def run(ctx: ToolContext, call: ToolCall) -> ToolOutput:
        if settings.collaboration_mode != PLAN:
            return ToolOutput(UNAVAILABLE, success=False)
        questions = questions_of(call.arguments())
        if ask_user is None:
            return ToolOutput("request_user_input failed: no client can answer", success=False)
        if ctx.set_flags is not None:
            await ctx.set_flags(["waitingOnUserInput"])
        try:
            answer = await ask_user(ev.UserInputAsk(ctx.thread_id, ctx.turn_id, call.call_id, questions))
        finally:
            if ctx.set_flags is not None:
                await ctx.set_flags([])
        if answer.answers is None:
            return ToolOutput("request_user_input was not answered", success=False)
        return ToolOutput(answer_text(answer.answers))

    return Tool(REQUEST_USER_INPUT, SPEC, run)


def tools(settings: TurnSettings, ask_user: AskUser | None) -> StaticTools:
    """The collaboration-mode tools of a turn, a source of its registry."""
    return StaticTools([tool(settings, ask_user)])
