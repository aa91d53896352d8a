"""Where a turn meets its hooks: the stdin every hook of the turn shares, and the turn's events.

The fields are those Codex 0.169.0 writes (observed by hooks that dump their stdin):
`session_id`, `turn_id`, `transcript_path`, `cwd`, `hook_event_name`, `model`, `permission_mode`,
and per event `source` (SessionStart), `prompt` (UserPromptSubmit), `tool_name`, `tool_input`,
`tool_use_id`, `tool_response` (Pre/PostToolUse), `stop_hook_active`, `last_assistant_message`
(Stop), `status`, `error`, `token_usage` (PostModelRequest). Tether keeps no rollout file, so
`transcript_path` is null.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tether_server.config.hooks import Hook
from tether_server.core import context, items
from tether_server.core import events as ev
from tether_server.core.hooks import SILENT, TurnHooks
from tether_server.core.ids import now_ms, uuid7
from tether_server.core.turn_scope import ActiveTurn, TurnScope, WorkScope
from tether_server.store.sources import spawn_info

AGENT_TYPE = "default"


def permission_mode(approval_policy: Any) -> str:
    """Codex's name for the approval policy: no asking at all is `bypassPermissions`."""
    return "bypassPermissions" if approval_policy == "never" else "default"


async def read_turn_hooks(session: WorkScope, turn: ActiveTurn) -> TurnHooks | None:
    """The turn's hooks (None when none would run): as last read when none of the files they come
    from changed, else read again from the config off the event loop."""
    known = session.deps.hooks_unchanged
    found = known(Path(session.settings.cwd)) if known is not None else None
    if found is not None:
        return turn_hooks(session, turn, found)
    return await asyncio.to_thread(turn_hooks, session, turn)


def turn_hooks(session: WorkScope, turn: ActiveTurn, found: Sequence[Hook] | None = None) -> TurnHooks | None:
    """The turn's hooks, `found` or read afresh from the config (None when none would run)."""
    find = session.deps.hooks
    if find is None:
        return None
    cwd = Path(session.settings.cwd)
    hooks = found if found is not None else find(cwd)
    if not hooks:
        return None
    common = {
        "session_id": session.thread_id,
        "turn_id": turn.id,
        "transcript_path": None,
        "cwd": str(cwd),
        "model": session.settings.model,
        "permission_mode": permission_mode(session.settings.approval_policy),
    }
    env = {**session.deps.env, "CODEX_THREAD_ID": session.thread_id, "TETHER_THREAD_ID": session.thread_id}
    return TurnHooks(
        hooks,
        thread_id=session.thread_id,
        turn_id=turn.id,
        cwd=cwd,
        env=env,
        sink=session.sink,
        common=common,
        mcp=session.deps.mcp,
    )


def spawned_by(session: WorkScope) -> str | None:
    """The parent thread's id when this thread is a sub-agent its parent spawned."""
    spawn = spawn_info(session.recorder.record.source)
    parent = spawn.get("parent_thread_id") if spawn is not None else None
    return parent if isinstance(parent, str) else None


def _agent_fields(session: WorkScope, parent: str) -> dict[str, Any]:
    # As Codex: the parent's id is the session, the child is the agent (of type `default`: Tether
    # spawns no other role).
    return {"session_id": parent, "agent_id": session.thread_id, "agent_type": AGENT_TYPE}


async def session_start(hooks: TurnHooks | None, session: TurnScope, turn: ActiveTurn) -> None:
    """SessionStart, once per loaded thread, at its first turn; its context goes to the model. A
    sub-agent runs SubagentStart in its place (on its own thread and turn), as Codex does."""
    parent = spawned_by(session)
    event = "SessionStart" if parent is None else "SubagentStart"
    if hooks is None or session.hooks_session_started or not hooks.has(event):
        return
    session.hooks_session_started = True
    if parent is not None:
        outcome = await hooks.run(event, _agent_fields(session, parent), AGENT_TYPE)
    else:
        source = "startup" if turn.ordinal == 0 else "resume"
        outcome = await hooks.run("SessionStart", {"source": source}, source)
    for text in outcome.contexts:
        session.recorder.history_entry(turn.id, context.text_message("developer", text))


async def user_prompt_submit(hooks: TurnHooks | None, prompt: str) -> tuple[str | None, list[str]]:
    """(the reason a hook blocked the prompt, or None; context for the model)."""
    if hooks is None:
        return None, []
    outcome = await hooks.run("UserPromptSubmit", {"prompt": prompt})
    return outcome.block_reason, outcome.contexts


async def stop(
    hooks: TurnHooks | None, session: TurnScope, turn: ActiveTurn, last_message: str | None, again: bool
) -> bool:
    """Run the Stop hooks; True when one blocked, which keeps the turn going: its reasons become a
    `hookPrompt` item and reach the model as a user prompt (`again`: this follows such a prompt,
    `stop_hook_active` on the hooks' stdin)."""
    if hooks is None:
        return False
    parent = spawned_by(session)
    if parent is not None:
        # A sub-agent's turn ends with SubagentStop instead of Stop (observed: its answer is not
        # acted on here, the child's result goes to its parent as it is).
        fields = {
            **_agent_fields(session, parent),
            "agent_transcript_path": None,
            "stop_hook_active": again,
            "last_assistant_message": last_message,
        }
        await hooks.run("SubagentStop", fields, AGENT_TYPE)
        return False
    fields = {"stop_hook_active": again, "last_assistant_message": last_message}
    outcome = await hooks.run("Stop", fields)
    if not outcome.blocked:
        return False
    item = items.HookPrompt(uuid7(), list(outcome.blocked), now_ms())
    await session.sink.emit(ev.ItemStarted(session.thread_id, turn.id, item))
    prompt = "".join(
        f'<hook_prompt hook_run_id="{run_id}">{text}</hook_prompt>' for run_id, text in outcome.blocked
    )
    session.recorder.history_entry(turn.id, context.text_message("user", prompt))
    item.completed_at_ms = now_ms()
    session.recorder.item(turn.id, item)
    await session.sink.emit(ev.ItemCompleted(session.thread_id, turn.id, item))
    return True


async def interrupt(session: TurnScope, turn: ActiveTurn) -> None:
    """Interrupt, when the user stopped the turn: before the turn's end is reported."""
    hooks = await asyncio.to_thread(turn_hooks, session, turn)
    if hooks is not None:
        await hooks.run("Interrupt", {})


async def session_end(session: TurnScope) -> None:
    """SessionEnd, when a loaded thread is unloaded. As Codex: `reason: "other"`, no turn, model
    or permission mode on its stdin, and no notification (the thread is going away)."""
    find = session.deps.hooks
    if find is None:
        return
    cwd = Path(session.settings.cwd)
    hooks = [hook for hook in await asyncio.to_thread(find, cwd) if hook.event == "SessionEnd"]
    if not hooks:
        return
    common = {"session_id": session.thread_id, "transcript_path": None, "cwd": str(cwd)}
    env = {**session.deps.env, "CODEX_THREAD_ID": session.thread_id, "TETHER_THREAD_ID": session.thread_id}
    ending = TurnHooks(
        hooks,
        thread_id=session.thread_id,
        turn_id="",
        cwd=cwd,
        env=env,
        sink=SILENT,
        common=common,
        mcp=session.deps.mcp,
    )
    await ending.run("SessionEnd", {"reason": "other"})


async def compact(session: WorkScope, turn: ActiveTurn, event: str) -> None:
    """PreCompact / PostCompact around a compaction. As Codex: `trigger` is `manual` for
    thread/compact/start, `auto` when the context ran full; no permission mode on the stdin."""
    hooks = await asyncio.to_thread(turn_hooks, session, turn)
    if hooks is None or not hooks.has(event):
        return
    trigger = "manual" if turn.kind == "compact" else "auto"
    await hooks.run(event, {"trigger": trigger}, trigger, drop=("permission_mode",))
