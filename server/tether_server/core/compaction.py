"""Compaction: replace a long history with a summary plus the user's recent messages (core.md §7.4).

The replacement is recorded in the (append-only) history as one marker item, so a thread loaded
from disk folds to the same history the model saw.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether_server.core import context, turn_hooks
from tether_server.core import events as ev
from tether_server.core.history import normalized
from tether_server.core.ids import now_ms, uuid7
from tether_server.core.items import ContextCompaction
from tether_server.core.model_answer import read_answer
from tether_server.providers.base import ModelProvider, ModelRequest

if TYPE_CHECKING:
    from tether_server.core.turn_scope import ActiveTurn, WorkScope

USER_BUDGET_CHARS = 80_000  # about 20,000 tokens of the user's own words are kept verbatim
DEFAULT_CONTEXT_WINDOW = 272_000

COMPACT_PROMPT = """Write a handoff note so that another assistant can take over this task without \
rereading the conversation. Cover, briefly and concretely:
- what the user asked for, and any constraints or preferences they stated;
- what has been done so far and the decisions taken (with file paths, commands and names);
- what is still open, as a list of next steps;
- any data or references the next assistant cannot easily find again."""

SUMMARY_PREFIX = (
    "The conversation so far was condensed to save space. Below is a handoff note written by the "
    "assistant that did the earlier work; the files and commands it mentions reflect the real state "
    "of the workspace. Continue from it without repeating finished work."
)


def auto_compact_limit(context_window: int | None, configured: int | None) -> int:
    window = context_window or DEFAULT_CONTEXT_WINDOW
    limit = int(window * 0.9)
    return min(limit, configured) if configured else limit


def _is_real_user_message(item: dict[str, Any]) -> bool:
    if item.get("type") != "message" or item.get("role") != "user":
        return False
    text = " ".join(str(c.get("text", "")) for c in item.get("content") or [])
    return not text.startswith(
        ("<environment_context>", "# AGENTS.md", "<turn_aborted>", SUMMARY_PREFIX[:40])
    )


def replacement_history(
    history: list[dict[str, Any]], summary: str, initial: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    kept: list[dict[str, Any]] = []
    budget = USER_BUDGET_CHARS
    for item in reversed([i for i in history if _is_real_user_message(i)]):
        size = len(json.dumps(item))
        if size > budget:
            break
        kept.append(item)
        budget -= size
    kept.reverse()
    note = context.text_message("user", f"{SUMMARY_PREFIX}\n\n{summary or '(no summary available)'}")
    return [*initial, *kept, note]


async def summarize(
    provider: ModelProvider, model: str, instructions: str, history: list[dict[str, Any]], cache_key: str
) -> str:
    request = ModelRequest(
        model=model,
        instructions=instructions,
        input=[*history, context.text_message("user", COMPACT_PROMPT)],
        tools=[],
        prompt_cache_key=cache_key,
    )
    return await read_answer(provider.stream(request))


def estimate_tokens(history: list[dict[str, Any]]) -> int:
    return len(json.dumps(history)) // 4


COMPACTED_WARNING = (
    "The conversation was compacted to fit the model's context window; the model now works "
    "from a summary. Long threads lose detail with each compaction: start a new thread for "
    "new work."
)


async def run_in_turn(session: WorkScope, turn: ActiveTurn) -> None:
    """Compact inside `turn`, as a `contextCompaction` item, then warn the user that it happened."""
    settings, deps, recorder = session.settings, session.deps, session.recorder
    await turn_hooks.compact(session, turn, "PreCompact")
    item = ContextCompaction(uuid7(), now_ms())
    await session.sink.emit(ev.ItemStarted(session.thread_id, turn.id, item))
    summary = await summarize(
        deps.provider_for(settings.model_provider),
        settings.model,
        context.base_instructions(settings),
        normalized(recorder.history),
        session.thread_id,
    )
    private = (*deps.private_paths, *deps.hidden_paths)
    docs = await context.load_project_docs(
        Path(settings.cwd), deps.home, deps.agents_max_bytes, deps.context_window, private
    )
    initial = context.context_messages(settings, docs)
    recorder.compacted(turn.id, replacement_history(recorder.history, summary, initial))
    session.reference = settings
    session.usage.reset_last(estimate_tokens(recorder.history))
    item.completed_at_ms = now_ms()
    recorder.item(turn.id, item)
    await session.sink.emit(ev.ItemCompleted(session.thread_id, turn.id, item))
    await turn_hooks.compact(session, turn, "PostCompact")
    await session.sink.emit(ev.ThreadWarning(session.thread_id, COMPACTED_WARNING))
