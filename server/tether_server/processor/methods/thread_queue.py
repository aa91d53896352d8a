"""`thread/queue/*` (experimental), as Codex 0.169.0 answers them: -32600 with its texts; an
unknown thread is Codex's -32603 store error. The queue itself is `processor.queues`."""

from __future__ import annotations

from typing import Any

from tether_protocol.v2 import thread_desktop as td
from tether_protocol.v2.inputs import UserInput
from tether_server.core.ids import uuid7
from tether_server.errors import InternalError, InvalidRequest, archived_message
from tether_server.processor.queues import QueueBook, not_found
from tether_server.processor.settings import wire
from tether_server.processor.state import ServerState
from tether_server.processor.uuid_text import check_thread_id
from tether_server.rpc.context import RequestContext
from tether_server.store.desktop import QueuedRecord

DEFAULT_LIMIT = 25
NOT_USER_INPUT = "only user input can be added to the user-message queue"
REORDER = "queue reorder must include every queued submission exactly once"


async def add(
    state: ServerState, ctx: RequestContext, params: td.ThreadQueueAddParams
) -> td.ThreadQueueAddResponse:
    book = await _book_for(state, params.thread_id)
    record = QueuedRecord(
        uuid7(), params.client_user_message_id, _content(params.input), params.responsesapi_client_metadata
    )
    started = await book.add(params.thread_id, record)
    if started is not None:
        ctx.after_response(started.release)
    return td.ThreadQueueAddResponse(queued_submission=_view(record))


async def list_(
    state: ServerState, ctx: RequestContext, params: td.ThreadQueueListParams
) -> td.ThreadQueueListResponse:
    await _book_for(state, params.thread_id)
    start = 0 if params.cursor is None else _index(params.cursor)
    limit = DEFAULT_LIMIT if params.limit is None else max(1, params.limit)
    queue = await state.store.queued(params.thread_id)
    page = queue[start : start + limit]
    more = start + limit < len(queue)
    return td.ThreadQueueListResponse(
        data=[_view(q) for q in page], next_cursor=str(start + limit) if more else None
    )


async def update(
    state: ServerState, ctx: RequestContext, params: td.ThreadQueueUpdateParams
) -> td.ThreadQueueUpdateResponse:
    book = await _book_for(state, params.thread_id)
    content = _content(params.input)
    async with book.lock(params.thread_id):
        queue = await state.store.queued(params.thread_id)
        found = next((q for q in queue if q.id == params.queued_submission_id), None)
        if found is None:
            raise not_found(params.queued_submission_id)
        # Empty or omitted metadata keeps the message's own (Codex's rule).
        metadata = params.responsesapi_client_metadata or found.metadata
        changed = QueuedRecord(found.id, found.client_user_message_id, content, metadata)
        await book.save(params.thread_id, [changed if q.id == found.id else q for q in queue])
    return td.ThreadQueueUpdateResponse(queued_submission=_view(changed))


async def delete(
    state: ServerState, ctx: RequestContext, params: td.ThreadQueueDeleteParams
) -> td.ThreadQueueDeleteResponse:
    book = await _book_for(state, params.thread_id)
    async with book.lock(params.thread_id):
        queue = await state.store.queued(params.thread_id)
        kept = [q for q in queue if q.id != params.queued_submission_id]
        if len(kept) == len(queue):
            return td.ThreadQueueDeleteResponse(deleted=False)
        await book.save(params.thread_id, kept)
    return td.ThreadQueueDeleteResponse(deleted=True)


async def reorder(
    state: ServerState, ctx: RequestContext, params: td.ThreadQueueReorderParams
) -> td.ThreadQueueReorderResponse:
    book = await _book_for(state, params.thread_id)
    async with book.lock(params.thread_id):
        queue = {q.id: q for q in await state.store.queued(params.thread_id)}
        ids = params.queued_submission_ids
        if len(ids) != len(queue) or set(ids) != set(queue):
            raise InvalidRequest(REORDER)
        await book.save(params.thread_id, [queue[i] for i in ids])
    return td.ThreadQueueReorderResponse()


async def start(
    state: ServerState, ctx: RequestContext, params: td.ThreadQueueStartParams
) -> td.ThreadQueueStartResponse:
    book = await _book_for(state, params.thread_id)
    started = await book.start(params.thread_id, params.queued_submission_id)
    ctx.after_response(started.release)
    turn = {
        "id": started.id,
        "rootTurnId": started.id,
        "items": [],
        "itemsView": "notLoaded",
        "status": "inProgress",
    }
    return td.ThreadQueueStartResponse.model_validate({"turn": turn})


async def _book_for(state: ServerState, thread_id: str) -> QueueBook:
    """The queue book, once the thread is known (loaded, or written) and not archived."""
    check_thread_id(thread_id)
    handle = state.threads.get(thread_id)
    record = handle.record if handle is not None else await state.store.get_thread(thread_id)
    if record is None:
        raise InternalError(
            f"failed to read thread: invalid thread-store request: no rollout found for thread id {thread_id}"
        )
    if record.archived:
        raise InvalidRequest(archived_message(thread_id))
    assert state.queues is not None  # made at start
    return state.queues


def _content(inputs: list[UserInput]) -> list[dict[str, Any]]:
    if not inputs:
        raise InvalidRequest(NOT_USER_INPUT)
    out: list[dict[str, Any]] = []
    for entry in inputs:
        data = wire(entry)
        if data.get("type") == "text" and "text_elements" not in data:
            data["text_elements"] = []
        out.append({k: v for k, v in data.items() if v is not None or k == "text_elements"})
    return out


def _view(record: QueuedRecord) -> td.QueuedSubmission:
    return td.QueuedSubmission.model_validate(
        {
            "id": record.id,
            "input": record.input,
            "clientUserMessageId": record.client_user_message_id,
            "responsesapiClientMetadata": record.metadata,
        }
    )


def _index(cursor: str) -> int:
    # Codex parses the cursor as an unsigned integer and quotes the parser's complaint.
    if not cursor:
        problem = "cannot parse integer from empty string"
    elif not cursor.isascii() or not cursor.isdigit():
        problem = "invalid digit found in string"
    elif len(cursor.lstrip("0")) > 19:
        problem = "number too large to fit in target type"
    else:
        return int(cursor)
    raise InvalidRequest(f"invalid queue pagination cursor: {problem}")
