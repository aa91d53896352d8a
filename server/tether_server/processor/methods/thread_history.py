"""thread/turns/list, thread/items/list, thread/fork, thread/revert."""

from __future__ import annotations

from typing import Any

from tether_protocol.v2 import thread_admin as ta
from tether_protocol.v2 import thread_history as th
from tether_protocol.v2 import thread_lifecycle as tl
from tether_protocol.v2.turn import Turn, TurnItemsView
from tether_server.core.events import IDLE, NOT_LOADED, ThreadReverted
from tether_server.errors import InvalidRequest, MethodNotFound
from tether_server.processor import projection
from tether_server.processor.methods.thread import announce_started
from tether_server.processor.settings import forked_settings, new_thread_record, stored_settings, wire
from tether_server.processor.state import ServerState
from tether_server.processor.views import session_response, thread_view, turn_view
from tether_server.rpc.context import RequestContext
from tether_server.store.base import (
    Batch,
    HistoryRecord,
    InvalidCursor,
    ItemRecord,
    LoadedThread,
    Page,
    SortDirection,
    ThreadRecord,
    TurnRecord,
)
from tether_server.store.cursors import anchor_cursor
from tether_server.tools.git_info import git_info_off_loop


def _view_items(items: list[dict[str, Any]], view: TurnItemsView) -> list[dict[str, Any]]:
    if view == "full":
        return items
    if view == "notLoaded":
        return []
    first_user = next((i for i in items if i.get("type") == "userMessage"), None)
    last_agent = next((i for i in reversed(items) if i.get("type") == "agentMessage"), None)
    return [i for i in (first_user, last_agent) if i is not None]


async def _require_materialized(state: ServerState, thread_id: str, what: str) -> None:
    if await state.store.get_thread(thread_id) is not None:
        return
    handle = state.threads.get(thread_id)
    if handle is not None:
        raise (
            MethodNotFound(f"{what} is not supported yet")
            if what.startswith("thread/items")
            else InvalidRequest(
                f"thread {thread_id} is not materialized yet; {what} is unavailable before first user message"
            )
        )
    raise InvalidRequest(f"thread not loaded: {thread_id}")


async def turns_list(
    state: ServerState, ctx: RequestContext, params: th.ThreadTurnsListParams
) -> th.ThreadTurnsListResponse:
    await _require_materialized(state, params.thread_id, "thread/turns/list")
    direction: SortDirection = "asc" if wire(params.sort_direction) == "asc" else "desc"
    limit = max(1, min(params.limit or 25, 200))
    try:
        page = await state.store.list_turns(
            params.thread_id, cursor=params.cursor, limit=limit, direction=direction
        )
    except InvalidCursor:
        raise InvalidRequest(f"invalid cursor: {params.cursor}") from None
    view: TurnItemsView = params.items_view or "summary"
    data: list[Turn] = []
    for turn in page.data:
        items: list[dict[str, Any]] = []
        if view != "notLoaded":
            rows = await state.store.list_items(
                params.thread_id, turn_id=turn.turn_id, cursor=None, limit=100_000, direction="asc"
            )
            items = [r.item for r in rows.data]
        data.append(turn_view(turn, _view_items(items, view), view))
    return th.ThreadTurnsListResponse(
        data=data, next_cursor=page.next_cursor, backwards_cursor=_backwards(page, direction)
    )


async def items_list(
    state: ServerState, ctx: RequestContext, params: th.ThreadItemsListParams
) -> th.ThreadItemsListResponse:
    await _require_materialized(state, params.thread_id, "thread/items/list")
    direction: SortDirection = "desc" if wire(params.sort_direction) == "desc" else "asc"
    cursor = params.cursor if isinstance(params.cursor, str) else None
    limit = max(1, min(params.limit or 50, 500))
    try:
        page = await state.store.list_items(
            params.thread_id, turn_id=params.turn_id, cursor=cursor, limit=limit, direction=direction
        )
    except InvalidCursor:
        raise InvalidRequest(f"invalid cursor: {params.cursor}") from None
    data = [
        th.ThreadItemEntry.model_validate(
            {
                "turn_id": r.turn_id,
                "item": r.item,
                "started_at_ms": r.started_at_ms,
                "completed_at_ms": r.completed_at_ms,
            }
        )
        for r in page.data
    ]
    return th.ThreadItemsListResponse(
        data=data, next_cursor=page.next_cursor, backwards_cursor=_backwards(page, direction)
    )


def _backwards(page: Page[Any], direction: SortDirection) -> str | None:
    """Codex's backwards cursor: none for an empty page, else one that, read the other way,
    starts with this page's first row again (a client catches that row's updates)."""
    if not page.data or page.backwards_cursor is None:
        return None
    return anchor_cursor(page.backwards_cursor, "asc" if direction == "desc" else "desc")


def _prefix(loaded: LoadedThread, last_turn_id: str | None) -> LoadedThread:
    """The thread up to and including `last_turn_id` (everything when None)."""
    if last_turn_id is None:
        return loaded
    ids = [t.turn_id for t in loaded.turns]
    if last_turn_id not in ids:
        raise InvalidRequest(f"turn not found: {last_turn_id}")
    keep = set(ids[: ids.index(last_turn_id) + 1])
    return LoadedThread(
        loaded.record,
        [t for t in loaded.turns if t.turn_id in keep],
        [i for i in loaded.items if i.turn_id in keep],
        [h for h in loaded.history if h.turn_id in keep],
    )


def _copy(source: LoadedThread, record: ThreadRecord) -> Batch:
    tid = record.id
    return Batch(
        thread=record,
        turns=[
            TurnRecord(
                tid,
                t.turn_id,
                t.ordinal,
                t.status if t.status != "inProgress" else "interrupted",
                t.error,
                t.started_at,
                t.completed_at,
                t.duration_ms,
            )
            for t in source.turns
        ],
        items=[
            ItemRecord(tid, i.turn_id, i.item_id, i.ordinal, i.item, i.started_at_ms, i.completed_at_ms)
            for i in source.items
        ],
        history=[HistoryRecord(tid, h.turn_id, n, h.item) for n, h in enumerate(source.history)],
    )


async def fork(state: ServerState, ctx: RequestContext, params: tl.ThreadForkParams) -> tl.ThreadForkResponse:
    if params.ephemeral and not params.exclude_turns:
        raise InvalidRequest("ephemeral paginated thread/fork requires `excludeTurns: true`")
    loaded = await state.store.load_thread(params.thread_id)
    if loaded is None:
        raise InvalidRequest(f"no rollout found for thread id {params.thread_id}")
    source = _prefix(loaded, params.last_turn_id)
    running = state.threads.get(params.thread_id)
    source_settings = running.settings if running is not None else stored_settings(loaded.record)
    settings = forked_settings(state.config.config, source_settings, params)
    record = new_thread_record(
        settings,
        source=loaded.record.source,
        cli_version=loaded.record.cli_version,
        originator=loaded.record.originator,
        preview=loaded.record.preview,
        name=loaded.record.name,
        forked_from_id=params.thread_id,
        # Codex reads the repository again for the fork (its branch may have moved since).
        git_info=await git_info_off_loop(settings.cwd),
    )
    copy = _copy(source, record)
    if not params.ephemeral:
        await state.store.commit(copy)
        opened = await state.threads.open(record.id)
        assert opened is not None
        handle = opened.handle
    else:
        handle = state.threads.create(record, settings, ephemeral=True)
        handle.replace_history([h.item for h in source.history])
    state.subscriptions.subscribe(record.id, ctx.connection)
    turns = [] if params.exclude_turns else _full_turns(copy)
    status = projection.status_json(handle.status)
    thread = thread_view(record, status=status, loaded=True, ephemeral=bool(params.ephemeral), turns=turns)
    ctx.after_response(lambda: announce_started(state, thread))
    return session_response(tl.ThreadForkResponse, thread, handle.settings)


def _full_turns(copy: Batch) -> list[Turn]:
    """The fork's turns with all their items, as Codex returns them."""
    by_turn: dict[str, list[dict[str, Any]]] = {}
    for item in copy.items:
        by_turn.setdefault(item.turn_id, []).append(item.item)
    return [turn_view(t, by_turn.get(t.turn_id, []), "full") for t in copy.turns]


async def revert(
    state: ServerState, ctx: RequestContext, params: ta.ThreadRevertParams
) -> ta.ThreadRevertResponse:
    handle = state.threads.get(params.thread_id)
    if handle is None:
        raise InvalidRequest(f"thread not loaded: {params.thread_id}")
    await handle.stop_turn()
    if not await state.store.truncate_before_turn(params.thread_id, params.before_turn_id):
        raise InvalidRequest(f"turn not found: {params.before_turn_id}")
    await handle.set_status(NOT_LOADED)
    await state.threads.unload(params.thread_id)
    opened = await state.threads.open(params.thread_id)
    assert opened is not None
    reloaded = opened.handle
    await reloaded.set_status(IDLE)
    thread = thread_view(reloaded.record, status=projection.status_json(reloaded.status), loaded=True)
    ctx.after_response(lambda: reloaded.emit(ThreadReverted(params.thread_id)))
    return ta.ThreadRevertResponse(thread=thread)
