"""Sections seen from threads: the `section` a `Thread` carries, and `thread/list` by section.

A section holds a user's handful of threads, so listing one filters its members in memory; the
unsectioned list is the store's list without every sectioned thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tether_protocol.v2 import thread_history as th
from tether_protocol.v2.thread import Thread, ThreadSection
from tether_server.errors import InvalidRequest
from tether_server.processor.settings import wire
from tether_server.processor.state import ServerState
from tether_server.store.base import InvalidCursor, Page, ThreadQuery, ThreadRecord
from tether_server.store.cursors import Position, decode_cursor, encode_cursor
from tether_server.store.search_text import contains_folded
from tether_server.store.sections import Membership

SECTION_POSITION = "section_position"


async def with_sections(state: ServerState, threads: Sequence[Thread]) -> None:
    """Fill in each thread's `section` and `sectionEnteredAt` (and its `projectId`) from the store."""
    projects = await state.store.thread_projects([t.id for t in threads])
    for thread in threads:
        thread.project_id = projects.get(thread.id, thread.project_id)
    members = await state.store.memberships([t.id for t in threads])
    sections: dict[str, ThreadSection] = {}
    for thread in threads:
        member = members.get(thread.id)
        if member is None:
            continue
        if member.section_id not in sections:
            found = await state.store.get_section(member.section_id)
            if found is None:
                continue
            sections[found.id] = ThreadSection(id=found.id, name=found.name, appearance=found.appearance)
        thread.section = sections[member.section_id]
        thread.section_entered_at = member.entered_at


def filtered(params: th.ThreadListParams) -> bool:
    """Whether the list names a section filter (null: unsectioned) or sorts by section position."""
    return "section_id" in params.model_fields_set or wire(params.sort_key) == SECTION_POSITION


async def list_page(
    state: ServerState, params: th.ThreadListParams, query: ThreadQuery
) -> Page[ThreadRecord]:
    """`thread/list` with a section filter, as Codex: an unknown section lists nothing."""
    by_position = wire(params.sort_key) == SECTION_POSITION
    if params.section_id is None:
        if by_position:
            raise InvalidRequest("section-position sorting requires a section filter")
        sectioned = [m.thread_id for m in await state.store.section_members(None)]
        return await state.store.list_threads(replace(query, exclude_ids=[*query.exclude_ids, *sectioned]))
    # Position order reads top to bottom unless the client asks otherwise.
    ascending = wire(params.sort_direction) == "asc" or (by_position and params.sort_direction is None)
    rows: list[tuple[Position, ThreadRecord]] = []
    for member in await state.store.section_members(params.section_id):
        record = await state.store.get_thread(member.thread_id)
        if record is not None and matches_query(record, query):
            rows.append((_position(member, record, query, by_position), record))
    rows.sort(key=lambda row: (row[0].k, row[0].id), reverse=not ascending)
    scope = f"section:{params.section_id}:{SECTION_POSITION if by_position else query.sort_key}"
    if query.cursor is not None:
        try:
            after = decode_cursor(query.cursor, scope)
        except InvalidCursor:
            raise InvalidRequest(f"invalid cursor: {query.cursor}") from None
        mark = (after.k, after.id)
        rows = [r for r in rows if ((r[0].k, r[0].id) > mark) == ascending and (r[0].k, r[0].id) != mark]
    page = rows[: query.limit]
    more = len(rows) > query.limit
    return Page(
        data=[record for _, record in page],
        next_cursor=encode_cursor(scope, page[-1][0]) if more and page else None,
        backwards_cursor=None,
    )


def _position(member: Membership, record: ThreadRecord, query: ThreadQuery, by_position: bool) -> Position:
    value = member.position if by_position else int(getattr(record, query.sort_key))
    return Position(value, record.id)


def matches_query(record: ThreadRecord, query: ThreadQuery) -> bool:
    """The store's listing rules, for one thread: listed, archive state and the filters given."""
    term = query.search_term
    return (
        bool(record.preview)
        and record.archived == query.archived
        and (not query.cwds or record.cwd in query.cwds)
        and (not query.model_providers or record.model_provider in query.model_providers)
        and (not query.sources or record.source in query.sources)
        and record.id not in query.exclude_ids
        and (not term or contains_folded(record.name or "", term) or contains_folded(record.preview, term))
    )
