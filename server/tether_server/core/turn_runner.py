"""Running one turn from `turn/started` to `turn/completed`, whatever its work and however it ends.

`ThreadSession.begin_turn` creates the turn and its task; the task runs `run_turn`, which wraps the
turn's work (sampling the model, a user shell command or a compaction) in the start and finish
every turn shares: status, the turn record, the context update and the one `TurnCompleted`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from tether_server import log, metrics, telemetry
from tether_server.core import agent_tools, compaction, context, external_tools, items, plan_mode, turn_hooks
from tether_server.core import events as ev
from tether_server.core.agent_tools import AgentTools
from tether_server.core.approval import TurnCancelled
from tether_server.core.goal_tools import GoalTools
from tether_server.core.history import normalized
from tether_server.core.hooks import TurnHooks
from tether_server.core.ids import now_ms, now_s, uuid7
from tether_server.core.proposed_plan import ProposedPlan
from tether_server.core.toolbox import ToolContext, ToolRegistry
from tether_server.core.turn import SamplingResult, TurnRun, sample_with_retries
from tether_server.core.turn_scope import ActiveTurn, TurnScope
from tether_server.errors import ConfigError, ProviderError, TetherError
from tether_server.providers.base import ModelRequest
from tether_server.store.base import StoreError, TurnRecord

_log = log.get("tether.core.session")

INTERRUPTED_MARKER = (
    "<turn_aborted>\nThe user stopped the previous turn on purpose. Commands it started were stopped; "
    "any tool call may have run partially.\n</turn_aborted>"
)


TurnWork = Callable[[TurnScope, ActiveTurn], Awaitable[items.AgentMessage | None]]
"""What a turn does between its start and its finish; returns the final agent message, if any."""


def open_turn(session: TurnScope, turn: ActiveTurn) -> None:
    """Record the thread and the turn, in progress, for the next commit."""
    recorder = session.recorder
    recorder.materialized = True
    recorder.record.updated_at = recorder.record.recency_at = now_s()
    # The base instructions on disk stay those the thread started with (Codex keeps them in the
    # session's metadata); a thread/resume override of them lasts while the thread is loaded.
    base = recorder.record.settings.get("baseInstructions") if recorder.record.settings else None
    recorder.record.settings = {**session.settings.to_json(), "baseInstructions": base}
    recorder.thread_changed()
    recorder.turn(turn_record(session, turn, "inProgress"))


def turn_record(
    session: TurnScope, turn: ActiveTurn, status: str, error: dict[str, Any] | None = None
) -> TurnRecord:
    done = status != "inProgress"
    return TurnRecord(
        session.thread_id,
        turn.id,
        turn.ordinal,
        status,
        error,
        turn.started_at,
        now_s() if done else None,
        now_ms() - turn.started_mono_ms if done else None,
    )


async def run_turn(session: TurnScope, turn: ActiveTurn, work: TurnWork) -> None:
    """The turn task: always ends with `TurnCompleted` (completed, interrupted or failed)."""
    metrics.turn_started()
    with telemetry.span("turn", {"tether.thread_id": session.thread_id, "tether.turn_id": turn.id}) as span:
        status, error, final = await _run_turn_work(session, turn, work)
        span.set({"tether.turn.status": status})
        if error is not None:
            span.fail(str(error.get("message", "")))
    metrics.turn_finished(status)
    if status == "interrupted":
        await asyncio.shield(turn_hooks.interrupt(session, turn))
    await asyncio.shield(_finish(session, turn, status, error, final))


async def _run_turn_work(
    session: TurnScope, turn: ActiveTurn, work: TurnWork
) -> tuple[str, dict[str, Any] | None, items.AgentMessage | None]:
    status: str = "completed"
    error: dict[str, Any] | None = None
    final: items.AgentMessage | None = None
    try:
        await turn.released.wait()
        await session.set_status(ev.ThreadStatus.active())
        await session.sink.emit(ev.TurnStarted(session.thread_id, turn.id, turn.started_at))
        await _record_context(session, turn)
        final = await work(session, turn)
    except (asyncio.CancelledError, TurnCancelled):
        status = "interrupted"
        session.recorder.history_entry(turn.id, context.text_message("user", INTERRUPTED_MARKER))
    except ProviderError as exc:
        status = "failed"
        error = items.turn_error(exc.message, exc.codex_error_info, exc.additional_details)
    except ConfigError as exc:  # e.g. the provider's API key is not set
        status, error = "failed", items.turn_error(exc.message, "unauthorized")
    except TetherError as exc:
        status, error = "failed", items.turn_error(exc.message)
    except Exception as exc:  # noqa: BLE001 - the thread task is a supervisor boundary
        _log.exception("turn.crashed", thread_id=session.thread_id, turn_id=turn.id)
        status, error = "failed", items.turn_error(f"internal error: {type(exc).__name__}")
    return status, error, final


async def _record_context(session: TurnScope, turn: ActiveTurn) -> None:
    """The environment (first turn) or what changed in the settings since the last turn."""
    deps = session.deps
    if session.reference is None:
        # Read off the loop: the project's AGENTS.md and skills are whatever the model made of them.
        docs = await context.load_project_docs(
            Path(session.settings.cwd),
            deps.home,
            deps.agents_max_bytes,
            deps.context_window,
            (*deps.private_paths, *deps.hidden_paths),
            deps.skill_roots.roots(),
        )
        extra = context.context_messages(session.settings, docs)
    else:
        extra = context.settings_update(session.reference, session.settings)
    if plan_mode.mode_changed(session.reference, session.settings):
        extra.append(plan_mode.mode_message(session.settings))
    for entry in extra:
        session.recorder.history_entry(turn.id, entry)
    session.reference = session.settings


async def _finish(
    session: TurnScope,
    turn: ActiveTurn,
    status: str,
    error: dict[str, Any] | None,
    final: items.AgentMessage | None,
) -> None:
    if status == "interrupted":
        await session.processes.close()
    try:
        tid = session.thread_id
        if session.deps.goals is not None:
            # As Codex: the goal's `thread/goal/updated` for this turn comes before the thread turns idle.
            await session.deps.goals.turn_finishing(tid, turn.id, now_ms() - turn.started_mono_ms)
        if error is not None:
            await session.set_status(ev.SYSTEM_ERROR)
            await session.sink.emit(ev.TurnFailed(tid, turn.id, error, will_retry=False))
        else:
            await session.set_status(ev.IDLE)
        record = turn_record(session, turn, status, error)
        session.recorder.turn(record)
        session.recorder.record.updated_at = now_s()
        session.recorder.thread_changed()
        done = ev.TurnCompleted(
            tid,
            turn.id,
            status,
            turn.started_at,
            record.completed_at,
            record.duration_ms,
            error,
            final if status == "completed" else None,
        )
        session.active = None
        await session.sink.emit(done)
    except StoreError as exc:
        # The store refused the turn's end (the database gone, this node's lease taken over, the
        # disk full). The clients still learn that the turn is over, or they would wait for it for
        # ever; the stored turn stays as the last commit left it, recovered as interrupted.
        _log.error("turn.end_unrecorded", thread_id=session.thread_id, turn_id=turn.id, error=exc.message)
        _end_unrecorded(session, turn, exc)


def _end_unrecorded(session: TurnScope, turn: ActiveTurn, exc: StoreError) -> None:
    """`turn/completed` (failed, saying why) and the thread's error status, sent but not written."""
    tid = session.thread_id
    session.active = None
    session.status = ev.SYSTEM_ERROR
    session.sink.emit_delta(ev.ThreadStatusChanged(tid, ev.SYSTEM_ERROR))
    reason = items.turn_error(f"the end of this turn could not be recorded: {exc.message}")
    duration = max(0, now_ms() - turn.started_mono_ms)
    done = ev.TurnCompleted(tid, turn.id, "failed", turn.started_at, now_s(), duration, reason)
    session.sink.emit_delta(done)


# ---- sampling the model -----------------------------------------------------------------------------


async def sample_until_done(session: TurnScope, turn: ActiveTurn) -> items.AgentMessage | None:
    """The work of a normal turn: sample, run the tools, repeat while the model or the user has more."""
    final: items.AgentMessage | None = None
    deps = session.deps
    modes = plan_mode.tools(session.settings, session.ask_user)
    goals = GoalTools(deps.goals) if deps.goals is not None and deps.goals.offered() else None
    hooks = await turn_hooks.read_turn_hooks(session, turn)
    provider = session.deps.provider_for(session.settings.model_provider)
    deferred = bool(getattr(provider, "client_tool_search", False))
    agents = AgentTools(deps.agents) if deps.agents is not None else None
    tools = external_tools.registry(
        deps.web_search, deps.mcp, session.dynamic, modes, goals, deferred=deferred, agents=agents
    )
    run = TurnRun(
        thread_id=session.thread_id,
        turn_id=turn.id,
        provider=provider,
        sink=session.sink,
        tools=_tool_context(session, turn, tools, hooks),
        build_request=lambda: _build_request(session, turn, tools),
        record_history=lambda item: session.recorder.history_entry(turn.id, item),
        usage=session.usage,
        stream_max_retries=session.deps.stream_max_retries,
        steered=turn.steered,
        plan=ProposedPlan(session.thread_id, turn.id)
        if session.settings.collaboration_mode == plan_mode.PLAN
        else None,
    )
    if session.needs_compaction():
        await compaction.run_in_turn(session, turn)
    starting = deps.mcp
    await turn_hooks.session_start(hooks, session, turn)
    first, stop_blocked = True, False
    while True:
        if await _record_user_input(session, turn, hooks) and first:
            return final  # a UserPromptSubmit hook blocked the turn's input: nothing to ask the model
        first = False
        if starting is not None:
            # The first request waits for MCP servers still starting (each at most its startup
            # timeout): a user who asks for a server's tool at once would find it missing.
            await starting.wait_started()
            starting = None
            continue  # input steered in meanwhile goes into this first request
        agent_tools.deliver(
            deps.agents, session.thread_id, lambda e: session.recorder.history_entry(turn.id, e)
        )
        result: SamplingResult = await _sample(run, session, hooks)
        final = result.last_agent_message or final
        if not result.needs_follow_up and not turn.pending:
            last = final.text if final is not None else None
            if not await turn_hooks.stop(hooks, session, turn, last, again=stop_blocked):
                return final
            stop_blocked = True
            continue
        if session.needs_compaction():
            await compaction.run_in_turn(session, turn)


async def _sample(run: TurnRun, session: TurnScope, hooks: TurnHooks | None) -> SamplingResult:
    if hooks is None:
        return await sample_with_retries(run)
    await hooks.run("PreModelRequest", {})
    result = await sample_with_retries(run)
    last = session.usage.last
    usage = {
        "input_tokens": last.input_tokens,
        "cached_input_tokens": last.cached_input_tokens,
        "cache_write_input_tokens": 0,
        "output_tokens": last.output_tokens,
        "reasoning_output_tokens": last.reasoning_output_tokens,
        "total_tokens": last.total_tokens,
    }
    await hooks.run("PostModelRequest", {"status": "completed", "error": None, "token_usage": usage})
    return result


async def _record_user_input(session: TurnScope, turn: ActiveTurn, hooks: TurnHooks | None = None) -> bool:
    """Record every pending input as a user message item (and into the model history), after its
    UserPromptSubmit hooks; True when hooks blocked every pending input."""
    recorder = session.recorder
    recorded = blocked_any = False
    while turn.pending:
        # What the client sent along with this input reaches the model just before it, once.
        for entry in context.additional_context(session.settings.additional_context):
            recorder.history_entry(turn.id, entry)
        session.settings = replace(session.settings, additional_context=())
        content, client_id = turn.pending.pop(0)
        blocked, contexts = await turn_hooks.user_prompt_submit(hooks, items.text_of(content))
        if blocked is not None:
            blocked_any = True
            continue  # the prompt never reaches the model; hook/completed says why
        recorded = True
        item = items.UserMessage(uuid7(), content, client_id, now_ms())
        await session.sink.emit(ev.ItemStarted(session.thread_id, turn.id, item))
        recorder.history_entry(turn.id, items.user_input_to_model(content))
        for text in contexts:
            recorder.history_entry(turn.id, context.text_message("developer", text))
        item.completed_at_ms = now_ms()
        recorder.item(turn.id, item)
        if not recorder.record.preview:
            recorder.record.preview = items.text_of(content)[:400]
            recorder.thread_changed()
        await session.sink.emit(ev.ItemCompleted(session.thread_id, turn.id, item))
    # Nothing awaited since the last check of `pending`: a steer from now on is a new one.
    turn.steered.clear()
    return blocked_any and not recorded


def _command_env(session: TurnScope) -> dict[str, str]:
    thread_id = session.thread_id
    return {**session.deps.env, "CODEX_THREAD_ID": thread_id, "TETHER_THREAD_ID": thread_id}


def _tool_context(
    session: TurnScope, turn: ActiveTurn, tools: ToolRegistry, hooks: TurnHooks | None = None
) -> ToolContext:
    thread_id, settings, deps = session.thread_id, session.settings, session.deps
    return ToolContext(
        thread_id=thread_id,
        turn_id=turn.id,
        cwd=Path(settings.cwd),
        sandbox_policy=settings.sandbox_policy,
        sink=session.sink,
        processes=session.processes,
        env=_command_env(session),
        gate=deps.gate,
        record_item=lambda item: session.recorder.item(turn.id, item),
        registry=tools,
        approval_policy=settings.approval_policy,
        ask=session.ask,
        set_flags=session.set_flags,
        approved_for_session=session.approved_for_session,
        allow_login_shell=deps.allow_login_shell,
        shell_snapshots=deps.shell_snapshots,
        exec_rules=deps.exec_rules,
        private_paths=deps.private_paths,
        hidden_paths=deps.hidden_paths,
        hooks=hooks,
        no_environment=settings.no_environment,
        item_id_for=session.recorder.tool_item_id,
    )


def _build_request(session: TurnScope, turn: ActiveTurn, tools: ToolRegistry) -> ModelRequest:
    settings = session.settings
    text: dict[str, Any] | None = None
    if turn.output_schema is not None:
        text = {
            "format": {
                "type": "json_schema",
                "strict": True,
                "schema": turn.output_schema,
                "name": "tether_output_schema",
            }
        }
    reasoning = None
    if settings.effort or settings.summary:
        reasoning = {"effort": settings.effort or "medium"}
        if settings.summary and settings.summary != "none":
            reasoning["summary"] = settings.summary
    return ModelRequest(
        model=settings.model,
        instructions=context.base_instructions(settings),
        input=normalized(session.recorder.history),
        # The built-in tools, then the outside ones: a fixed order keeps the prefix cacheable.
        tools=tools.specs(),
        parallel_tool_calls=True,
        reasoning=reasoning,
        text=text,
        prompt_cache_key=session.thread_id,
        include=["reasoning.encrypted_content"] if reasoning else [],
        service_tier=settings.service_tier,
        headers={"session_id": session.thread_id},
        reasoning_effort=settings.effort,
    )
