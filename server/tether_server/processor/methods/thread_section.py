"""`threadSection/*` and `thread/section/move`, as Codex 0.169.0 answers them.

Section errors are -32602 with Codex's texts, move errors -32600. A move answers `{}` and then
broadcasts `thread/section/changed`; creating, renaming and deleting a section notify nobody.
"""

from __future__ import annotations

from tether_protocol import server_methods as sm
from tether_protocol.v2 import thread_section as ts
from tether_protocol.v2.thread import ThreadSection
from tether_server.core.ids import now_s, uuid7
from tether_server.errors import InvalidParams, InvalidRequest
from tether_server.processor import fleet_news
from tether_server.processor.state import ServerState
from tether_server.processor.thread_lookup import record_or_fail
from tether_server.processor.uuid_text import check_thread_id
from tether_server.rpc.context import RequestContext
from tether_server.store.sections import PINNED_SECTION_ID, Membership, SectionRecord

DEFAULT_LIMIT = 100
# Gap between neighbours: a move between two threads takes the midpoint, so many moves fit in
# before the section has to be renumbered.
POSITION_STEP = 1_000_000


def section_view(record: SectionRecord) -> ThreadSection:
    return ThreadSection(id=record.id, name=record.name, appearance=record.appearance)


async def section_list(
    state: ServerState, ctx: RequestContext, params: ts.ThreadSectionListParams
) -> ts.ThreadSectionListResponse:
    limit = DEFAULT_LIMIT if params.limit is None else max(1, params.limit)
    found = await state.store.list_sections(params.cursor, limit + 1)
    page = found[:limit]
    more = len(found) > limit
    return ts.ThreadSectionListResponse(
        data=[section_view(s) for s in page], next_cursor=page[-1].id if more and page else None
    )


async def section_create(
    state: ServerState, ctx: RequestContext, params: ts.ThreadSectionCreateParams
) -> ts.ThreadSectionCreateResponse:
    record = SectionRecord(uuid7(), _name(params.name), _appearance(params.appearance))
    await state.store.put_section(record)
    return ts.ThreadSectionCreateResponse(section=section_view(record))


async def section_update(
    state: ServerState, ctx: RequestContext, params: ts.ThreadSectionUpdateParams
) -> ts.ThreadSectionUpdateResponse:
    name = _name(params.name)
    if params.section_id == PINNED_SECTION_ID:
        raise InvalidParams("the built-in pinned section cannot be renamed")
    current = await _section_or_fail(state, params.section_id)
    keep = "appearance" not in params.model_fields_set
    appearance = current.appearance if keep else _appearance(params.appearance)
    record = SectionRecord(current.id, name, appearance)
    await state.store.put_section(record)
    return ts.ThreadSectionUpdateResponse(section=section_view(record))


async def section_delete(
    state: ServerState, ctx: RequestContext, params: ts.ThreadSectionDeleteParams
) -> ts.ThreadSectionDeleteResponse:
    if params.section_id == PINNED_SECTION_ID:
        raise InvalidParams("the built-in pinned section cannot be deleted")
    if not await state.store.delete_section(params.section_id):
        raise InvalidParams(f"thread section not found: {params.section_id}")
    return ts.ThreadSectionDeleteResponse()


async def move(
    state: ServerState, ctx: RequestContext, params: ts.ThreadSectionMoveParams
) -> ts.ThreadSectionMoveResponse:
    thread_id, section_id, before = params.thread_id, params.section_id, params.before_thread_id
    check_thread_id(thread_id)
    await record_or_fail(state, thread_id)
    if section_id is None:
        await state.store.set_memberships([], remove=[thread_id])
    else:
        if await state.store.get_section(section_id) is None:
            raise InvalidRequest(f"section {section_id} does not exist")
        if before == thread_id:
            raise InvalidRequest(f"thread {thread_id} cannot be moved before itself")
        current = (await state.store.memberships([thread_id])).get(thread_id)
        others = [m for m in await state.store.section_members(section_id) if m.thread_id != thread_id]
        if before is not None and all(m.thread_id != before for m in others):
            raise InvalidRequest(f"before thread {before} is not in section {section_id}")
        # Reordering within a section keeps the time the thread entered it.
        entered = current.entered_at if current and current.section_id == section_id else now_s()
        await state.store.set_memberships(_placed(thread_id, section_id, entered, others, before))
    changed = ts.ThreadSectionChangedNotification(thread_id=thread_id, section_id=section_id)
    ctx.after_response(lambda: fleet_news.broadcast(state, sm.THREAD_SECTION_CHANGED, changed))
    return ts.ThreadSectionMoveResponse()


def _placed(
    thread_id: str, section_id: str, entered: int, others: list[Membership], before: str | None
) -> list[Membership]:
    """The memberships to write: the moved thread, and every other one if the gap ran out."""
    if before is None:
        position = (others[-1].position if others else 0) + POSITION_STEP
        return [Membership(thread_id, section_id, position, entered)]
    index = next(i for i, m in enumerate(others) if m.thread_id == before)
    low = others[index - 1].position if index > 0 else 0
    position = (low + others[index].position) // 2
    if position > low:
        return [Membership(thread_id, section_id, position, entered)]
    order = [*others[:index], Membership(thread_id, section_id, 0, entered), *others[index:]]
    return [
        Membership(m.thread_id, section_id, (i + 1) * POSITION_STEP, m.entered_at)
        for i, m in enumerate(order)
    ]


async def _section_or_fail(state: ServerState, section_id: str) -> SectionRecord:
    found = await state.store.get_section(section_id)
    if found is None:
        raise InvalidParams(f"thread section not found: {section_id}")
    return found


def _name(name: str) -> str:
    trimmed = name.strip()
    if not trimmed:
        raise InvalidParams("section name must not be empty")
    return trimmed


def _appearance(appearance: ts.ThreadSectionAppearance | None) -> dict[str, str | None] | None:
    return None if appearance is None else {"icon": appearance.icon, "color": appearance.color}
