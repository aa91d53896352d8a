"""`project/*` (experimental), as Codex 0.169.0 answers them: -32602 with its texts; a change is
answered, then broadcast as `project/changed` (and `thread/project/updated` for each thread that
joined or left). Positions count from 0; a move renumbers them all, a deletion leaves a gap."""

from __future__ import annotations

from dataclasses import replace
from pathlib import PurePosixPath

from tether_protocol import server_methods as sm
from tether_protocol.v2 import project as pj
from tether_server.core.ids import now_s, uuid7
from tether_server.errors import InvalidParams, InvalidRequest
from tether_server.processor import fleet_news
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext
from tether_server.store.projects import ProjectRecord

DEFAULT_LIMIT = 100
BAD_CURSOR = "invalid project cursor: malformed or mismatched sort anchor"


async def list_(
    state: ServerState, ctx: RequestContext, params: pj.ProjectListParams
) -> pj.ProjectListResponse:
    if params.sort_direction is not None and params.sort_key is None:
        raise InvalidParams("sortDirection requires sortKey")
    by_recency = params.sort_key == "recencyAt"
    ascending = params.sort_direction == "asc" if params.sort_direction else not by_recency
    projects = await state.store.list_projects()
    recency = await state.store.project_recency([p.id for p in projects])

    def anchor(p: ProjectRecord) -> tuple[int, int, str]:
        if not by_recency:
            return (0, p.position, p.id)
        # Empty projects come last whichever the direction.
        seen = recency.get(p.id)
        return (1 if ascending else -1, 0, p.id) if seen is None else (0, seen, p.id)

    rows = sorted(projects, key=anchor, reverse=not ascending)

    def cursor(p: ProjectRecord) -> str:
        # Codex's shapes: `position|id`, and for recency `v1|recencyAt|direction|milliseconds|id`.
        group, value, pid = anchor(p)
        if not by_recency:
            return f"{value}|{pid}"
        shown = str(value * 1000) if group == 0 else ""
        return f"v1|recencyAt|{'asc' if ascending else 'desc'}|{shown}|{pid}"

    if params.cursor is not None:
        rows = rows[_after(params.cursor, [cursor(p) for p in rows]) :]
    limit = DEFAULT_LIMIT if params.limit is None else max(1, params.limit)
    page = rows[:limit]
    more = len(rows) > limit
    return pj.ProjectListResponse(
        data=[_view(p, recency) for p in page], next_cursor=cursor(page[-1]) if more else None
    )


async def read(
    state: ServerState, ctx: RequestContext, params: pj.ProjectReadParams
) -> pj.ProjectReadResponse:
    project = await _project_or_fail(state, params.project_id)
    return pj.ProjectReadResponse(project=await _shown(state, project))


async def create(
    state: ServerState, ctx: RequestContext, params: pj.ProjectCreateParams
) -> pj.ProjectCreateResponse:
    project = await _create(
        state, ctx, params.idempotency_key, params.name, params.roots, params.metadata, []
    )
    return pj.ProjectCreateResponse(project=await _shown(state, project))


async def import_(
    state: ServerState, ctx: RequestContext, params: pj.ProjectImportParams
) -> pj.ProjectImportResponse:
    threads = list(dict.fromkeys(params.threads or []))
    for thread_id in threads:
        if state.threads.get(thread_id) is None and await state.store.get_thread(thread_id) is None:
            raise InvalidParams(f"thread not found: {thread_id}")
    project = await _create(
        state, ctx, params.idempotency_key, params.name, params.roots, params.metadata, threads
    )
    return pj.ProjectImportResponse(project=await _shown(state, project))


async def update(
    state: ServerState, ctx: RequestContext, params: pj.ProjectUpdateParams
) -> pj.ProjectUpdateResponse:
    project = await _project_or_fail(state, params.project_id)
    given = params.model_fields_set & {"name", "roots", "metadata"}
    changed = project
    if params.name is not None:
        changed = replace(changed, name=_name(params.name))
    if params.roots is not None:
        changed = replace(changed, roots=_roots(params.roots))
    if params.metadata is not None:
        changed = replace(changed, metadata=dict(params.metadata))
    if any(getattr(params, f) is not None for f in given):
        changed = replace(changed, updated_at=now_s())
        await state.store.put_projects([changed])
        _changed(state, ctx, changed.id, "updated")
    return pj.ProjectUpdateResponse(project=await _shown(state, changed))


async def move(
    state: ServerState, ctx: RequestContext, params: pj.ProjectMoveParams
) -> pj.ProjectMoveResponse:
    project = await _project_or_fail(state, params.project_id)
    before = params.before_project_id
    if before == project.id:
        raise InvalidParams(f"project {project.id} cannot be moved before itself")
    others = [p for p in await state.store.list_projects() if p.id != project.id]
    if before is None:
        order = [*others, project]
    else:
        index = next((i for i, p in enumerate(others) if p.id == before), None)
        if index is None:
            raise InvalidParams(f"before project not found: {before}")
        order = [*others[:index], project, *others[index:]]
    await state.store.put_projects([replace(p, position=i) for i, p in enumerate(order)])
    _changed(state, ctx, project.id, "updated")
    return pj.ProjectMoveResponse()


async def delete(
    state: ServerState, ctx: RequestContext, params: pj.ProjectDeleteParams
) -> pj.ProjectDeleteResponse:
    project = await _project_or_fail(state, params.project_id)
    held = await state.store.delete_project(project.id)
    _changed(state, ctx, project.id, "deleted")
    for thread_id in held:
        _thread_moved(state, ctx, thread_id, None)
    return pj.ProjectDeleteResponse()


async def _create(
    state: ServerState,
    ctx: RequestContext,
    key: str,
    name: str,
    roots: list[pj.ProjectRoot],
    metadata: dict[str, str] | None,
    threads: list[str],
) -> ProjectRecord:
    paths = _roots(roots)
    if not key:
        raise InvalidParams("idempotencyKey must not be empty")
    trimmed = _name(name)
    existing = await state.store.project_by_key(key)
    if existing is not None:
        return existing
    projects = await state.store.list_projects()
    position = max((p.position for p in projects), default=-1) + 1
    now = now_s()
    project = ProjectRecord(uuid7(), trimmed, paths, dict(metadata or {}), position, now, now, key)
    await state.store.put_projects([project], threads, project.id)
    _changed(state, ctx, project.id, "created")
    for thread_id in threads:
        _thread_moved(state, ctx, thread_id, project.id)
    return project


def _roots(roots: list[pj.ProjectRoot]) -> list[str]:
    paths: list[str] = []
    for root in roots:
        if not PurePosixPath(root.path).is_absolute():
            # Codex's parser refuses a relative path before the request reaches the method.
            raise InvalidRequest("Invalid request: AbsolutePathBuf deserialized without a base path")
        if root.path in paths:
            raise InvalidParams(f"duplicate project root: {root.path}")
        paths.append(root.path)
    return paths


def _name(name: str) -> str:
    trimmed = name.strip()
    if not trimmed:
        raise InvalidParams("project name must not be empty")
    return trimmed


async def _project_or_fail(state: ServerState, project_id: str) -> ProjectRecord:
    found = await state.store.get_project(project_id)
    if found is None:
        raise InvalidParams(f"project not found: {project_id}")
    return found


async def _shown(state: ServerState, project: ProjectRecord) -> pj.Project:
    return _view(project, await state.store.project_recency([project.id]))


def _view(project: ProjectRecord, recency: dict[str, int]) -> pj.Project:
    return pj.Project(
        id=project.id,
        name=project.name,
        roots=[pj.ProjectRoot(path=p) for p in project.roots],
        metadata=project.metadata,
        position=project.position,
        created_at=project.created_at,
        updated_at=project.updated_at,
        recency_at=recency.get(project.id),
    )


def _after(cursor: str, cursors: list[str]) -> int:
    """The index just after the project the cursor names; a cursor of no listed project is refused."""
    try:
        return cursors.index(cursor) + 1
    except ValueError:
        raise InvalidParams(BAD_CURSOR) from None


def _changed(state: ServerState, ctx: RequestContext, project_id: str, change: str) -> None:
    kind = "created" if change == "created" else "deleted" if change == "deleted" else "updated"
    note = pj.ProjectChangedNotification(project_id=project_id, change_type=kind)
    ctx.after_response(lambda: fleet_news.broadcast(state, sm.PROJECT_CHANGED, note))


def _thread_moved(state: ServerState, ctx: RequestContext, thread_id: str, project_id: str | None) -> None:
    note = pj.ThreadProjectUpdatedNotification(thread_id=thread_id, project_id=project_id)
    ctx.after_response(lambda: fleet_news.broadcast(state, sm.THREAD_PROJECT_UPDATED, note))
