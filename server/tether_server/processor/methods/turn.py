"""turn/* handlers."""

from __future__ import annotations

from typing import Any

from tether_protocol.v2 import thread_admin as ta
from tether_protocol.v2 import turn as tu
from tether_protocol.v2.inputs import UserInput
from tether_server.errors import Conflict, NotFound, archived_message
from tether_server.processor import projection, requirements, settings_updates, turn_options
from tether_server.processor.settings import turn_settings, wire
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext
from tether_server.threads.handle import StartedTurn, ThreadHandle

DRAINING = "Server is draining; retry after reconnecting"


def _handle(state: ServerState, thread_id: str) -> ThreadHandle:
    handle = state.threads.get(thread_id)
    if handle is None:
        raise NotFound(f"thread not found: {thread_id}")
    return handle


def _content(inputs: list[UserInput]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for entry in inputs:
        data = wire(entry)
        if data.get("type") == "text" and "text_elements" not in data:
            data["text_elements"] = []
        out.append({k: v for k, v in data.items() if v is not None or k == "text_elements"})
    return out


async def start(state: ServerState, ctx: RequestContext, params: tu.TurnStartParams) -> tu.TurnStartResponse:
    handle = _handle(state, params.thread_id)
    if not handle.running and state.draining:
        raise Conflict(DRAINING, data={"reason": "serverShuttingDown"})
    if handle.record.archived:
        raise Conflict(archived_message(params.thread_id))
    before = handle.settings
    settings = turn_options.apply(state.config.config, turn_settings(before, params), params)
    await requirements.check_turn(settings)
    schema = params.output_schema if isinstance(params.output_schema, dict) else None
    started = await handle.start_turn(_content(params.input), params.client_user_message_id, settings, schema)
    # Codex announces the change before it answers.
    settings_updates.announce(state, settings_updates.changed(params.thread_id, before, settings))
    return tu.TurnStartResponse(turn=answer_then_run(ctx, started))


def answer_then_run(ctx: RequestContext, started: StartedTurn) -> tu.Turn:
    """The started turn as the answer shows it; it runs once that answer is out, so that the
    answer precedes the turn's events (the handle has already made it durable)."""
    ctx.after_response(started.release)
    return tu.Turn.model_validate(projection.turn_json(started.id, "inProgress", started_at=None))


async def steer(state: ServerState, ctx: RequestContext, params: tu.TurnSteerParams) -> tu.TurnSteerResponse:
    handle = _handle(state, params.thread_id)
    turn_id = handle.steer(_content(params.input), params.expected_turn_id, params.client_user_message_id)
    return tu.TurnSteerResponse(turn_id=turn_id)


async def interrupt(
    state: ServerState, ctx: RequestContext, params: tu.TurnInterruptParams
) -> tu.TurnInterruptResponse:
    _handle(state, params.thread_id).interrupt(params.turn_id)
    return tu.TurnInterruptResponse()


async def shell_command(
    state: ServerState, ctx: RequestContext, params: ta.ThreadShellCommandParams
) -> ta.ThreadShellCommandResponse:
    _handle(state, params.thread_id).shell_command(params.command, params.timeout_ms)
    return ta.ThreadShellCommandResponse()


async def compact_start(
    state: ServerState, ctx: RequestContext, params: ta.ThreadCompactStartParams
) -> ta.ThreadCompactStartResponse:
    _handle(state, params.thread_id).start_compact()
    return ta.ThreadCompactStartResponse()
