"""`thread/metadata/update` (git info patches) and `thread/inject_items` (model history), as
Codex 0.169.0 answers them: -32600 with its texts, no notification for either."""

from __future__ import annotations

from typing import Any

from tether_protocol.v2 import thread_section as ts
from tether_server.errors import InvalidRequest
from tether_server.processor import projection
from tether_server.processor.section_views import with_sections
from tether_server.processor.state import ServerState
from tether_server.processor.uuid_text import check_thread_id
from tether_server.processor.views import thread_view
from tether_server.rpc.context import RequestContext
from tether_server.store.base import Batch

_GIT_FIELDS = (("sha", "sha"), ("branch", "branch"), ("origin_url", "originUrl"))

# The Responses API item types the model history takes, with the fields each must carry (in the
# order Codex reports a missing one). Items of other types are accepted and never sent, as Codex.
_REQUIRED: dict[str, tuple[str, ...]] = {
    "message": ("role", "content"),
    "reasoning": ("summary",),
    "function_call": ("name", "arguments", "call_id"),
    "function_call_output": ("call_id", "output"),
    "custom_tool_call": ("call_id", "name", "input"),
    "custom_tool_call_output": ("call_id", "output"),
    "local_shell_call": ("status", "action"),
    "tool_search_call": ("execution", "arguments"),
    "tool_search_output": ("status", "execution", "tools"),
    "web_search_call": (),
    "image_generation_call": ("id", "status", "result"),
    "compaction": ("encrypted_content",),
}


async def metadata_update(
    state: ServerState, ctx: RequestContext, params: ts.ThreadMetadataUpdateParams
) -> ts.ThreadMetadataUpdateResponse:
    thread_id, patch = params.thread_id, params.git_info
    check_thread_id(thread_id)
    if patch is None:
        raise InvalidRequest("thread metadata update must include at least one field")
    given = [(attr, name) for attr, name in _GIT_FIELDS if attr in patch.model_fields_set]
    if not given:
        raise InvalidRequest("gitInfo must include at least one field")
    for attr, name in given:
        value = getattr(patch, attr)
        if value is not None and not value.strip():
            raise InvalidRequest(f"gitInfo.{name} must not be empty")
    handle = state.threads.get(thread_id)
    stored = await state.store.get_thread(thread_id)
    record = handle.record if handle is not None else stored
    if record is None:
        raise InvalidRequest(f"no rollout found for thread id {thread_id}")
    git_info = {name: (record.git_info or {}).get(name) for _, name in _GIT_FIELDS}
    git_info.update({name: getattr(patch, attr) for attr, name in given})
    record.git_info = git_info
    if stored is not None:
        # A thread not written yet keeps the patch in memory; its first turn writes the row.
        stored.git_info = git_info
        await state.store.commit(Batch(thread=record))
    status = projection.status_json(handle.status) if handle is not None else None
    thread = thread_view(record, status=status, loaded=handle is not None)
    await with_sections(state, [thread])
    return ts.ThreadMetadataUpdateResponse(thread=thread)


async def inject_items(
    state: ServerState, ctx: RequestContext, params: ts.ThreadInjectItemsParams
) -> ts.ThreadInjectItemsResponse:
    check_thread_id(params.thread_id)
    handle = state.threads.get(params.thread_id)
    if handle is None:
        raise InvalidRequest(f"thread not found: {params.thread_id}")
    if not params.items:
        raise InvalidRequest("items must not be empty")
    for index, item in enumerate(params.items):
        problem = _item_problem(item)
        if problem is not None:
            raise InvalidRequest(f"items[{index}] is not a valid response item: {problem}")
    await handle.inject_history([item for item in params.items if item["type"] in _REQUIRED])
    return ts.ThreadInjectItemsResponse()


def _item_problem(item: Any) -> str | None:
    """Why `item` is no Responses API item, in the words of Codex's parser; None when it is one."""
    if not isinstance(item, dict):
        return f"invalid type: {_json_kind(item)}, expected internally tagged enum ResponseItem"
    kind = item.get("type")
    if kind is None:
        return "missing field `type`"
    if not isinstance(kind, str):
        return f"invalid type: {_json_kind(kind)}, expected variant identifier"
    for name in _REQUIRED.get(kind, ()):
        if name not in item:
            return f"missing field `{name}`"
    return None


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean `{str(value).lower()}`"
    if isinstance(value, int):
        return f"integer `{value}`"
    if isinstance(value, float):
        return f"floating point `{value}`"
    if isinstance(value, str):
        return f'string "{value}"'
    return "sequence" if isinstance(value, list) else "map"
