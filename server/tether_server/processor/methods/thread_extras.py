"""thread/search, thread/readState/update, thread/settings/update."""

from __future__ import annotations

import uuid
from dataclasses import replace

from tether_protocol import server_methods as sm
from tether_protocol.v2 import thread_extras as tx
from tether_protocol.v2.turn import TurnStartParams
from tether_server.errors import Conflict, InvalidRequest, NotFound
from tether_server.processor import projection, settings_updates, turn_options
from tether_server.processor.read_marks import experimental
from tether_server.processor.settings import turn_settings, wire
from tether_server.processor.state import ServerState
from tether_server.processor.thread_lookup import record_or_fail, sort_key_of
from tether_server.processor.views import thread_view, wire_read_state
from tether_server.rpc.context import RequestContext
from tether_server.rpc.outgoing import send_notification
from tether_server.store.base import InvalidCursor, ThreadQuery, ThreadRecord

REVISION_CONFLICT = "thread changed since it was last read; read it again"


def _snippet(record: ThreadRecord, term: str) -> str:
    for text in (record.name or "", record.preview or ""):
        if term.lower() in text.lower():
            return text
    return record.preview or record.name or ""


async def search(
    state: ServerState, ctx: RequestContext, params: tx.ThreadSearchParams
) -> tx.ThreadSearchResponse:
    """The full-text index `thread/list`'s `searchTerm` uses, with a snippet per thread."""
    term = params.search_term.strip()
    if not term:
        raise InvalidRequest("searchTerm must not be empty")
    query = ThreadQuery(
        limit=max(1, min(params.limit or 25, 100)),
        cursor=params.cursor,
        sort_key=sort_key_of(params.sort_key),
        sort_direction=wire(params.sort_direction) or "desc",
        archived=bool(params.archived),
        sources=[str(wire(kind)) for kind in params.source_kinds] if params.source_kinds else None,
        search_term=term,
    )
    try:
        page = await state.store.list_threads(query)
    except InvalidCursor:
        raise InvalidRequest(f"invalid cursor: {params.cursor}") from None
    data = []
    for record in page.data:
        handle = state.threads.get(record.id)
        status = projection.status_json(handle.status) if handle else None
        thread = thread_view(record, status=status, loaded=False)
        data.append(tx.ThreadSearchResult(thread=thread, snippet=_snippet(record, term)))
    return tx.ThreadSearchResponse(
        data=data, next_cursor=page.next_cursor, backwards_cursor=page.backwards_cursor
    )


async def read_state_update(
    state: ServerState, ctx: RequestContext, params: tx.ThreadReadStateUpdateParams
) -> tx.ThreadReadStateUpdateResponse:
    """Mark a thread read (nothing unread) or unread (from its start), guarded by the revision seen."""
    await record_or_fail(state, params.thread_id)
    unread = {"type": "threadStart"} if wire(params.operation).get("type") == "unread" else None
    revision = str(uuid.uuid4())
    if state.read_marks is not None:
        state.read_marks.forget(params.thread_id)
    stored = await state.store.set_read_state(
        params.thread_id, unread, expected=params.expected_revision, revision=revision
    )
    if state.read_marks is not None:  # again: a turn's check between the two saw the old marker
        state.read_marks.forget(params.thread_id)
    if stored is None:
        raise NotFound(f"thread not found: {params.thread_id}")
    read_state = wire_read_state(stored)
    if stored.revision != revision:
        raise Conflict(REVISION_CONFLICT, data={"readState": read_state.wire()})
    changed = tx.ThreadReadStateChangedNotification(thread_id=params.thread_id, read_state=read_state)
    ctx.after_response(
        lambda: send_notification(experimental(state.connections()), sm.THREAD_READ_STATE_CHANGED, changed)
    )
    return tx.ThreadReadStateUpdateResponse(read_state=read_state)


async def settings_update(
    state: ServerState, ctx: RequestContext, params: tx.ThreadSettingsUpdateParams
) -> tx.ThreadSettingsUpdateResponse:
    """Change the settings the thread's next turns start with (as `turn/start` overrides do)."""
    handle = state.threads.get(params.thread_id)
    if handle is None:
        raise NotFound(f"thread not loaded: {params.thread_id}")
    overrides = TurnStartParams.model_validate(
        {"threadId": params.thread_id, "input": [], **params.model_dump(by_alias=True, exclude_none=True)}
    )
    before = handle.settings
    after = turn_options.apply(state.config.config, turn_settings(before, overrides), overrides)
    handle.update_settings(replace(after, additional_context=before.additional_context))
    update = settings_updates.changed(params.thread_id, before, after)
    ctx.after_response(lambda: settings_updates.announce(state, update))
    return tx.ThreadSettingsUpdateResponse()
