"""thread/* handlers."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from tether_protocol import server_methods as sm
from tether_protocol.common import WireModel
from tether_protocol.spec import NotificationSpec, WireParams
from tether_protocol.v2 import notifications as n
from tether_protocol.v2 import thread_admin as ta
from tether_protocol.v2 import thread_history as th
from tether_protocol.v2 import thread_lifecycle as tl
from tether_protocol.v2.thread import Thread
from tether_protocol.v2.thread_goal import ThreadGoalUpdatedNotification
from tether_server import heap, log
from tether_server.config.layers import config_at
from tether_server.core.dynamic_calls import DynamicTool, DynamicTools, parse_specs
from tether_server.core.events import IDLE, NOT_LOADED
from tether_server.core.ids import now_s
from tether_server.core.settings import TurnSettings
from tether_server.errors import Conflict, InvalidParams, InvalidRequest, NotFound, archived_message
from tether_server.processor import fleet_news, projection, requirements, resume_state
from tether_server.processor.lifecycle import announce_recovered, apply_resumed
from tether_server.processor.project_views import by_project
from tether_server.processor.project_views import list_page as project_list_page
from tether_server.processor.section_views import filtered, with_sections
from tether_server.processor.section_views import list_page as section_list_page
from tether_server.processor.settings import (
    collaboration_json,
    default_cwd,
    new_thread_record,
    overridden,
    resumed_settings,
    stored_settings,
    thread_settings,
    wire,
)
from tether_server.processor.state import ServerState
from tether_server.processor.stored_turns import stored_turns
from tether_server.processor.subscriptions import encode_event
from tether_server.processor.thread_lookup import record_or_fail, sort_key_of
from tether_server.processor.views import session_response, thread_view, wire_read_state
from tether_server.rpc.connection import Connection
from tether_server.rpc.context import RequestContext
from tether_server.rpc.outgoing import send_notification
from tether_server.store.base import EventRecord, InvalidCursor, ThreadQuery
from tether_server.threads.handle import ThreadEvent, ThreadHandle
from tether_server.tools.git_info import git_info_off_loop

P = TypeVar("P", bound=WireModel)


def _loaded_view(handle: ThreadHandle) -> Thread:
    status = projection.status_json(handle.status)
    return thread_view(handle.record, status=status, loaded=True, ephemeral=handle.ephemeral)


def announce_started(state: ServerState, thread: Thread) -> None:
    """`thread/started` to every connection (after the response that created the thread)."""
    _broadcast(state, sm.THREAD_STARTED, n.ThreadStartedNotification(thread=thread))


async def start(
    state: ServerState, ctx: RequestContext, params: tl.ThreadStartParams
) -> tl.ThreadStartResponse:
    if state.draining:
        raise Conflict("Server is draining; retry after reconnecting", data={"reason": "serverShuttingDown"})
    cwd = Path(params.cwd) if params.cwd else default_cwd()
    settings = thread_settings(config_at(state.config, cwd), params, default_cwd())
    settings, warnings = await requirements.enforce(settings)
    declared = _dynamic_tools(params)
    if params.project_id is not None and await state.store.get_project(params.project_id) is None:
        raise InvalidRequest(f"project not found: {params.project_id}")
    git = await git_info_off_loop(settings.cwd)
    record = new_thread_record(settings, originator=state.originator or ctx.connection.client_name)
    log.bind(thread_id=record.id)  # the rest of this request's work is the new thread's
    handle = state.threads.create(record, settings, ephemeral=bool(params.ephemeral))
    if declared and state.dynamic is not None:
        handle.set_dynamic_tools(DynamicTools(declared, state.dynamic.caller(record.id, ctx.connection)))
    state.subscriptions.subscribe(record.id, ctx.connection)
    if params.project_id is not None and not handle.ephemeral:
        # Like a section, a project takes a thread before its first turn writes it.
        await state.store.put_projects([], [record.id], params.project_id)
    thread = _loaded_view(handle)
    thread.project_id = params.project_id
    # Codex reads the repository when the thread starts but reports it only once the thread is
    # stored: null in this response and in thread/started, then in read, list, resume.
    record.git_info = git
    requirements.warn_now(ctx, warnings)
    conn = ctx.connection
    ctx.after_response(lambda: announce_started(state, thread))
    ctx.after_response(lambda: requirements.warn_thread(conn, record.id, warnings))
    return session_response(tl.ThreadStartResponse, thread, settings)


def _dynamic_tools(params: tl.ThreadStartParams) -> list[DynamicTool]:
    """The declared dynamic tools, checked before anything is created."""
    try:
        return parse_specs(params.dynamic_tools or [])
    except ValueError as exc:
        raise InvalidParams(str(exc)) from None


async def resume(
    state: ServerState, ctx: RequestContext, params: tl.ThreadResumeParams
) -> tl.ThreadResumeResponse:
    settings = await _resume_overrides(state, params)
    opened = await state.threads.open(params.thread_id)
    if opened is None:
        raise InvalidRequest(f"no rollout found for thread id {params.thread_id}")
    handle = opened.handle
    if handle.record.archived:
        raise InvalidRequest(archived_message(params.thread_id))
    if opened.loaded_now:
        if settings is not None:
            await apply_resumed(state, handle, settings)
        await handle.set_status(IDLE)
    thread = _loaded_view(handle)
    if not (params.exclude_turns or handle.ephemeral):
        heap.paused_until_answered()
        thread.with_raw_turns(await stored_turns(state.store, params.thread_id))
    await with_sections(state, [thread])
    conn = ctx.connection
    if params.after_seq is None:
        state.subscriptions.subscribe(params.thread_id, conn)
    else:
        # Read the store first: once the response is out, the replay follows it with no await
        # in between, so a client's next round trip sees everything it missed.
        after_seq = params.after_seq
        stored = await state.store.read_events(handle.thread_id, after_seq, limit=1_000_000)
        ctx.after_response(lambda: replay_then_subscribe(state, conn, handle, after_seq, stored))
    usage = None if handle.ephemeral else await resume_state.last_usage(state.store, params.thread_id)
    if usage is not None:
        ctx.after_response(lambda: send_notification([conn], sm.THREAD_TOKEN_USAGE_UPDATED, usage))
    goals = state.goals if state.goals is not None and state.goals.offered() else None
    goal = None if handle.ephemeral or goals is None else await state.store.get_goal(params.thread_id)
    if goal is not None and goals is not None:
        # As Codex: the resumed thread's goal follows the answer, so a client shows it at once...
        shown = WireParams[ThreadGoalUpdatedNotification](
            {"threadId": params.thread_id, "turnId": None, "goal": goal}
        )
        ctx.after_response(lambda: send_notification([conn], sm.THREAD_GOAL_UPDATED, shown))
        # ...and an active goal goes on working (after a restart too), as there.
        ctx.after_response(lambda: goals.continue_if_active(params.thread_id, goal))
    ctx.after_response(lambda: announce_recovered(state, handle))
    approvals = state.approvals
    ctx.after_response(lambda: approvals.resend(params.thread_id, conn))
    if state.dynamic is not None:
        dynamic = state.dynamic
        ctx.after_response(lambda: dynamic.resend(params.thread_id, conn))
    turns_back, items_back = (
        (None, None)
        if handle.ephemeral
        else await resume_state.backwards_cursors(state.store, params.thread_id)
    )
    return session_response(
        tl.ThreadResumeResponse,
        thread,
        handle.settings,
        collaboration_mode=collaboration_json(handle.settings),
        turns_backwards_cursor=turns_back,
        items_backwards_cursor=items_back,
    )


async def _resume_overrides(state: ServerState, params: tl.ThreadResumeParams) -> TurnSettings | None:
    """The settings a stored thread resumes with when the params override any (checked before
    anything loads: bad overrides change nothing). None for a loaded thread: Codex 0.169.0 leaves a
    thread it already runs as it is and ignores the overrides."""
    if state.threads.get(params.thread_id) is not None or not overridden(params):
        return None
    record = await state.store.get_thread(params.thread_id)
    if record is None:
        raise InvalidRequest(f"no rollout found for thread id {params.thread_id}")
    if record.archived:
        raise InvalidRequest(archived_message(params.thread_id))
    stored = stored_settings(record)
    config = config_at(state.config, Path(params.cwd or stored.cwd))
    return resumed_settings(config, stored, params)


def replay_then_subscribe(
    state: ServerState, conn: Connection, handle: ThreadHandle, after_seq: int, stored: list[EventRecord]
) -> None:
    """Send exactly what the client missed, then make it a live subscriber, with no gap between.

    Durable events come from the store (they survive restarts), deltas from the in-memory ring
    (as far back as it reaches). Nothing awaits between reading the ring and subscribing, so no
    event can slip between the replay and the live stream. Broadcast events the connection
    already received while it was not subscribed are not sent twice.
    """
    events = {e.seq: ThreadEvent.replayed(e) for e in stored}
    events.update((e.seq, e) for e in handle.ring_after(after_seq))
    seen = state.subscriptions.seen_broadcasts(handle.thread_id, conn)
    for seq in sorted(events):
        event = events[seq]
        if seq not in seen and conn.wants(event.method):
            conn.send_frame(encode_event(event))
    state.subscriptions.subscribe(handle.thread_id, conn)


async def read(state: ServerState, ctx: RequestContext, params: th.ThreadReadParams) -> th.ThreadReadResponse:
    handle = state.threads.get(params.thread_id)
    if handle is not None:
        record, status = handle.record, projection.status_json(handle.status)
        loaded, ephemeral = True, handle.ephemeral
    else:
        found = await state.store.get_thread(params.thread_id)
        if found is None:
            raise NotFound(f"thread not loaded: {params.thread_id}")
        record, status, loaded, ephemeral = found, None, False, False
    thread = thread_view(record, status=status, loaded=loaded, ephemeral=ephemeral)
    if params.include_turns and not ephemeral:
        heap.paused_until_answered()
        thread.with_raw_turns(await stored_turns(state.store, record.id))
    await with_sections(state, [thread])
    marks = await state.store.read_states([record.id])
    read_state = wire_read_state(marks[record.id]) if record.id in marks else None
    return th.ThreadReadResponse(thread=thread, read_state=read_state)


async def list_threads(
    state: ServerState, ctx: RequestContext, params: th.ThreadListParams
) -> th.ThreadListResponse:
    cwd = params.cwd
    query = ThreadQuery(
        limit=max(1, min(params.limit or 50, 100)),
        cursor=params.cursor,
        sort_key=sort_key_of(params.sort_key),
        sort_direction=wire(params.sort_direction) or "desc",
        archived=bool(params.archived),
        cwds=[cwd] if isinstance(cwd, str) else cwd,
        model_providers=params.model_providers or None,
        sources=[str(wire(kind)) for kind in params.source_kinds] if params.source_kinds else None,
        search_term=params.search_term or None,
        exclude_ids=params.excluded_thread_ids or (),
    )
    if params.originators:
        raise InvalidParams("originator filtering is not supported by the local app-server")
    try:
        page = await (
            project_list_page(state, params, query)
            if by_project(params)
            else section_list_page(state, params, query)
            if filtered(params)
            else state.store.list_threads(query)
        )
    except InvalidCursor:
        raise InvalidRequest(f"invalid cursor: {params.cursor}") from None
    data = []
    for record in page.data:
        handle = state.threads.get(record.id)
        status = projection.status_json(handle.status) if handle else None
        data.append(thread_view(record, status=status, loaded=False))
    await with_sections(state, data)
    marks = await state.store.read_states([record.id for record in page.data])
    return th.ThreadListResponse(
        data=data,
        next_cursor=page.next_cursor,
        backwards_cursor=page.backwards_cursor,
        read_states={tid: wire_read_state(mark) for tid, mark in marks.items()},
    )


async def loaded_list(
    state: ServerState, ctx: RequestContext, params: th.ThreadLoadedListParams
) -> th.ThreadLoadedListResponse:
    ids = sorted(state.threads.loaded_ids())
    start = int(params.cursor) if params.cursor and str(params.cursor).isdigit() else 0
    limit = params.limit or len(ids) or 1
    page = ids[start : start + limit]
    nxt = str(start + limit) if start + limit < len(ids) else None
    return th.ThreadLoadedListResponse(data=page, next_cursor=nxt)


async def unsubscribe(
    state: ServerState, ctx: RequestContext, params: ta.ThreadUnsubscribeParams
) -> ta.ThreadUnsubscribeResponse:
    if state.threads.get(params.thread_id) is None:
        return ta.ThreadUnsubscribeResponse(status="notLoaded")
    removed = state.subscriptions.unsubscribe(params.thread_id, ctx.connection)
    return ta.ThreadUnsubscribeResponse(status="unsubscribed" if removed else "notSubscribed")


def _broadcast(state: ServerState, spec: NotificationSpec[P], params: P) -> None:
    fleet_news.broadcast(state, spec, params)


async def name_set(
    state: ServerState, ctx: RequestContext, params: ta.ThreadSetNameParams
) -> ta.ThreadSetNameResponse:
    name = (params.name or "").strip()
    if not name:
        raise InvalidRequest("thread name must not be empty")
    record = await record_or_fail(state, params.thread_id)
    record.name = name
    await state.store.set_name(params.thread_id, name, now_s())
    update = n.ThreadNameUpdatedNotification(thread_id=params.thread_id, thread_name=name)
    ctx.after_response(lambda: _broadcast(state, sm.THREAD_NAME_UPDATED, update))
    return ta.ThreadSetNameResponse()


async def archive(
    state: ServerState, ctx: RequestContext, params: ta.ThreadArchiveParams
) -> ta.ThreadArchiveResponse:
    record = await record_or_fail(state, params.thread_id)
    handle = state.threads.get(params.thread_id)
    if handle is not None and handle.running:
        raise Conflict("cannot archive a thread while a turn is running; interrupt it first")
    if not await state.store.set_archived(params.thread_id, True, now_s()):
        raise NotFound(f"no rollout found for thread id {params.thread_id}")
    record.archived = True
    if handle is not None:
        await _unload(state, handle)
    ctx.after_response(
        lambda: _broadcast(
            state, sm.THREAD_ARCHIVED, n.ThreadArchivedNotification(thread_id=params.thread_id)
        )
    )
    return ta.ThreadArchiveResponse()


async def unarchive(
    state: ServerState, ctx: RequestContext, params: ta.ThreadUnarchiveParams
) -> ta.ThreadUnarchiveResponse:
    record = await state.store.get_thread(params.thread_id)
    if record is None:
        raise NotFound(f"no rollout found for thread id {params.thread_id}")
    await state.store.set_archived(params.thread_id, False, now_s())
    record.archived = False
    ctx.after_response(
        lambda: _broadcast(
            state, sm.THREAD_UNARCHIVED, n.ThreadUnarchivedNotification(thread_id=params.thread_id)
        )
    )
    thread = thread_view(record, status=None, loaded=False)
    await with_sections(state, [thread])
    return ta.ThreadUnarchiveResponse(thread=thread)


async def delete(
    state: ServerState, ctx: RequestContext, params: ta.ThreadDeleteParams
) -> ta.ThreadDeleteResponse:
    handle = state.threads.get(params.thread_id)
    if handle is not None:
        await handle.stop_turn()
        await _unload(state, handle)
    deleted = await state.store.delete_thread(params.thread_id)
    if not deleted and handle is None:
        raise InvalidRequest(f"no rollout found for thread id {params.thread_id}")
    ctx.after_response(
        lambda: _broadcast(state, sm.THREAD_DELETED, n.ThreadDeletedNotification(thread_id=params.thread_id))
    )
    return ta.ThreadDeleteResponse()


async def _unload(state: ServerState, handle: ThreadHandle) -> None:
    await handle.set_status(NOT_LOADED)
    await state.threads.unload(handle.thread_id)
    state.subscriptions.forget(handle.thread_id)
