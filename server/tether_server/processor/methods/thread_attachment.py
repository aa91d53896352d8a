"""`thread/attachment/add|list|remove` and `thread/attachmentOwner/list`, as Codex 0.169.0 answers
them: -32602 with its texts; an attachment needs a written thread (one with a turn); adding one
that exists answers it unchanged (`existing`) and notifies nobody; a change answers first, then
broadcasts `thread/attachment/updated`."""

from __future__ import annotations

import json
from typing import Any

from tether_protocol import server_methods as sm
from tether_protocol.v2 import thread_desktop as td
from tether_server.core.ids import now_s, uuid7
from tether_server.errors import InvalidParams
from tether_server.processor import fleet_news
from tether_server.processor.state import ServerState
from tether_server.processor.uuid_text import uuid_error
from tether_server.rpc.context import RequestContext
from tether_server.store.desktop import AttachmentRecord

DEFAULT_LIMIT = 100
MAX_KEY_BYTES = 256
MAX_PAYLOAD_BYTES = 65536
_BAD_CURSOR = "invalid pagination cursor"


async def add(
    state: ServerState, ctx: RequestContext, params: td.ThreadAttachmentAddParams
) -> td.ThreadAttachmentAddResponse:
    _check_id(params.thread_id)
    _check_identity(params.attachment_type, params.identity_key)
    # Codex measures the payload as compact JSON, non-ASCII text unescaped.
    size = len(json.dumps(params.payload, separators=(",", ":"), ensure_ascii=False).encode())
    if size > MAX_PAYLOAD_BYTES:
        raise InvalidParams(f"attachment payload must not exceed {MAX_PAYLOAD_BYTES} bytes")
    await _stored_or_fail(state, params.thread_id)
    fresh = AttachmentRecord(
        uuid7(), params.thread_id, params.attachment_type, params.identity_key, params.payload, now_s()
    )
    record, created = await state.store.add_attachment(fresh)
    if created:
        _announce(state, ctx, record, "created")
    return td.ThreadAttachmentAddResponse(
        attachment=_view(record), outcome="created" if created else "existing"
    )


async def list_(
    state: ServerState, ctx: RequestContext, params: td.ThreadAttachmentListParams
) -> td.ThreadAttachmentListResponse:
    _check_id(params.thread_id)
    after = None if params.cursor is None else _list_position(params.thread_id, params.cursor)
    limit = _limit(params.limit)
    found = await state.store.list_attachments(params.thread_id, after, limit + 1)
    page = found[:limit]
    last = page[-1] if len(found) > limit else None
    cursor = None if last is None else f"{params.thread_id}|{last.created_at}|{last.id}"
    return td.ThreadAttachmentListResponse(data=[_view(a) for a in page], next_cursor=cursor)


async def remove(
    state: ServerState, ctx: RequestContext, params: td.ThreadAttachmentRemoveParams
) -> td.ThreadAttachmentRemoveResponse:
    _check_id(params.thread_id)
    _check_identity(params.attachment_type, params.identity_key)
    await _stored_or_fail(state, params.thread_id)
    removed = await state.store.remove_attachment(
        params.thread_id, params.attachment_type, params.identity_key
    )
    if removed is not None:
        _announce(state, ctx, removed, "deleted")
    return td.ThreadAttachmentRemoveResponse()


async def owner_list(
    state: ServerState, ctx: RequestContext, params: td.ThreadAttachmentOwnerListParams
) -> td.ThreadAttachmentOwnerListResponse:
    _check_identity(params.attachment_type, params.identity_key)
    # The cursor names the query it continues; one from another query is refused.
    query: dict[str, Any] = {
        "attachment_type": params.attachment_type,
        "identity_key": params.identity_key,
        "archived": params.archived,
    }
    after = None if params.cursor is None else _owner_position(query, params.cursor)
    limit = _limit(params.limit)
    found = await state.store.attachment_owners(
        params.attachment_type, params.identity_key, params.archived, after, limit + 1
    )
    page = found[:limit]
    cursor = None
    if len(found) > limit:
        cursor = json.dumps({**query, "thread_id": page[-1].thread_id}, separators=(",", ":"))
    return td.ThreadAttachmentOwnerListResponse(
        data=[td.ThreadAttachmentOwner(thread_id=o.thread_id, archived=o.archived) for o in page],
        next_cursor=cursor,
    )


def _announce(state: ServerState, ctx: RequestContext, record: AttachmentRecord, operation: str) -> None:
    note = td.ThreadAttachmentUpdatedNotification(
        thread_id=record.thread_id,
        attachment_type=record.attachment_type,
        identity_key=record.identity_key,
        attachment_id=record.id,
        operation="created" if operation == "created" else "deleted",
    )
    ctx.after_response(lambda: fleet_news.broadcast(state, sm.THREAD_ATTACHMENT_UPDATED, note))


def _view(record: AttachmentRecord) -> td.ThreadAttachment:
    return td.ThreadAttachment(
        id=record.id,
        attachment_type=record.attachment_type,
        identity_key=record.identity_key,
        payload=record.payload,
        created_at=record.created_at,
    )


def _check_id(thread_id: str) -> None:
    problem = uuid_error(thread_id)
    if problem is not None:
        raise InvalidParams(f"invalid thread id: {problem}")


def _check_identity(attachment_type: str, identity_key: str) -> None:
    for name, value in (("attachmentType", attachment_type), ("identityKey", identity_key)):
        if not value:
            raise InvalidParams(f"{name} must not be empty")
        if len(value.encode()) > MAX_KEY_BYTES:
            raise InvalidParams(f"{name} must not exceed {MAX_KEY_BYTES} bytes")


async def _stored_or_fail(state: ServerState, thread_id: str) -> None:
    if await state.store.get_thread(thread_id) is None:
        raise InvalidParams(f"thread not found: {thread_id}")


def _limit(limit: int | None) -> int:
    return DEFAULT_LIMIT if limit is None else min(max(1, limit), DEFAULT_LIMIT)


def _list_position(thread_id: str, cursor: str) -> tuple[int, str]:
    parts = cursor.split("|")
    if len(parts) != 3 or parts[0] != thread_id or not parts[1].isdigit() or not parts[2]:
        raise InvalidParams(_BAD_CURSOR)
    return int(parts[1]), parts[2]


def _owner_position(query: dict[str, Any], cursor: str) -> str:
    try:
        decoded = json.loads(cursor)
    except ValueError:
        raise InvalidParams(_BAD_CURSOR) from None
    if not isinstance(decoded, dict) or not isinstance(decoded.get("thread_id"), str):
        raise InvalidParams(_BAD_CURSOR)
    if any(decoded.get(key) != value for key, value in query.items()):
        raise InvalidParams(_BAD_CURSOR)
    return str(decoded["thread_id"])
