"""`thread/list` by project (experimental `projectId`): omitted lists every thread, null only
threads in no project, an id only that project's threads (an unknown id: an empty page).

A project holds a user's handful of threads, so listing one filters its members in memory, in the
list's sort order; the list of threads in no project is the store's list without every member.
"""

from __future__ import annotations

from dataclasses import replace

from tether_protocol.v2 import thread_history as th
from tether_server.errors import InvalidRequest
from tether_server.processor.section_views import matches_query
from tether_server.processor.state import ServerState
from tether_server.store.base import InvalidCursor, Page, ThreadQuery, ThreadRecord
from tether_server.store.cursors import Position, decode_cursor, encode_cursor


def by_project(params: th.ThreadListParams) -> bool:
    return "project_id" in params.model_fields_set


async def list_page(
    state: ServerState, params: th.ThreadListParams, query: ThreadQuery
) -> Page[ThreadRecord]:
    if params.project_id is None:
        members = await state.store.project_members(None)
        return await state.store.list_threads(replace(query, exclude_ids=[*query.exclude_ids, *members]))
    ascending = query.sort_direction == "asc"
    rows: list[tuple[Position, ThreadRecord]] = []
    for thread_id in await state.store.project_members(params.project_id):
        record = await state.store.get_thread(thread_id)
        if record is not None and matches_query(record, query):
            rows.append((Position(int(getattr(record, query.sort_key)), record.id), record))
    rows.sort(key=lambda row: (row[0].k, row[0].id), reverse=not ascending)
    scope = f"project:{params.project_id}:{query.sort_key}"
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
