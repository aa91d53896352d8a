"""`externalAgentConfig/detect|import|import/recordHistory|import/readHistories`.

As Codex 0.169.0: detect offers, per scope (home, then each working directory), the MCP servers,
skills and instructions file that the target does not have yet; import answers an `importId` at
once, then sends one `externalAgentConfig/import/progress` per item and `…/completed` with the
results grouped by type, and records the import in the history (not when there were no items).
Item types Tether cannot use (Claude Code's settings, commands, sub-agents, hooks, sessions…)
are neither detected nor imported: their items are skipped.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path

from pydantic import ValidationError

from tether_protocol import server_methods as sm
from tether_protocol.common import EmptyParams
from tether_protocol.v2 import external_agent as xa
from tether_server.config import external_agent as found
from tether_server.config import import_history
from tether_server.config.write import ConfigWriteError, Edit, write_config
from tether_server.private_file import write_atomic
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext
from tether_server.rpc.outgoing import send_notification


def _where(scope: found.Scope) -> str | None:
    return None if scope.cwd is None else str(scope.cwd)


def _detect(state: ServerState, params: xa.ExternalAgentConfigDetectParams) -> list[xa.MigrationItem]:
    items: list[xa.MigrationItem] = []
    for scope in found.scopes(Path.home(), state.home, params.include_home, params.cwds or []):
        cwd = _where(scope)
        servers = found.new_servers(scope)
        if servers:
            origin = scope.cwd or scope.user_home
            items.append(
                xa.MigrationItem(
                    item_type=found.MCP,
                    description=f"Migrate MCP servers from {origin} into {scope.config_path}",
                    cwd=cwd,
                    details=xa.MigrationDetails(mcp_servers=[xa.Named(name=n) for n in servers]),
                )
            )
        skills = found.new_skills(scope)
        if skills:
            items.append(
                xa.MigrationItem(
                    item_type=found.SKILLS,
                    description=f"Migrate skills from {scope.skills_source} to {scope.skills_target}",
                    cwd=cwd,
                    details=xa.MigrationDetails(skills=[xa.Named(name=n) for n in skills]),
                )
            )
        if found.doc_to_copy(scope):
            items.append(
                xa.MigrationItem(
                    item_type=found.AGENTS_MD,
                    description=f"Migrate {scope.doc_source} to {scope.doc_target}",
                    cwd=cwd,
                )
            )
    return items


async def detect(
    state: ServerState, ctx: RequestContext, params: xa.ExternalAgentConfigDetectParams
) -> xa.ExternalAgentConfigDetectResponse:
    items = await asyncio.to_thread(_detect, state, params)
    return xa.ExternalAgentConfigDetectResponse(items=items)


def _scope(state: ServerState, item: xa.MigrationItem) -> found.Scope | None:
    if not item.cwd:
        return found.Scope(None, Path.home(), state.home)
    cwd = Path(item.cwd)
    return found.Scope(cwd, Path.home(), state.home) if cwd.is_absolute() and cwd.is_dir() else None


def _chosen(names: list[str], item: xa.MigrationItem, picked: list[xa.Named] | None) -> list[str]:
    # The client may narrow an item to some of the names detect offered.
    wanted = {n.name for n in picked or []}
    return [n for n in names if n in wanted] if wanted else names


def _failure(item: xa.MigrationItem, source: str | None, exc: Exception) -> xa.ImportFailure:
    return xa.ImportFailure(
        item_type=item.item_type,
        failure_stage="import",
        message=str(exc),
        cwd=item.cwd or None,
        source=source,
    )


async def _import_servers(
    state: ServerState, scope: found.Scope, item: xa.MigrationItem
) -> xa.ImportTypeResult:
    result = xa.ImportTypeResult(item_type=item.item_type)
    foreign = found.foreign_servers(scope)
    names = _chosen(found.new_servers(scope), item, item.details.mcp_servers if item.details else None)
    tables = {}
    for name in names:
        try:
            tables[name] = found.server_table(name, foreign[name])
        except ValueError as exc:
            result.failures.append(_failure(item, name, exc))
    if not tables:
        return result
    try:
        if scope.cwd is None:
            edits = [Edit(f"mcp_servers.{name}", table) for name, table in tables.items()]
            state.config = write_config(state.config, edits).loaded
        else:
            await asyncio.to_thread(found.add_project_servers, scope.config_path, tables)
    except (OSError, ConfigWriteError) as exc:
        result.failures.extend(_failure(item, name, exc) for name in tables)
        return result
    result.successes.extend(
        xa.ImportSuccess(item_type=item.item_type, cwd=_where(scope), source=n, target=n) for n in tables
    )
    return result


def _import_files(scope: found.Scope, item: xa.MigrationItem) -> xa.ImportTypeResult:
    result = xa.ImportTypeResult(item_type=item.item_type)
    cwd = _where(scope)
    if item.item_type == found.AGENTS_MD:
        if found.doc_to_copy(scope):
            try:
                write_atomic(scope.doc_target, scope.doc_source.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError) as exc:
                result.failures.append(_failure(item, str(scope.doc_source), exc))
            else:
                success = xa.ImportSuccess(
                    item_type=item.item_type,
                    cwd=cwd,
                    source=str(scope.doc_source),
                    target=str(scope.doc_target),
                )
                result.successes.append(success)
        return result
    for name in _chosen(found.new_skills(scope), item, item.details.skills if item.details else None):
        try:
            scope.skills_target.mkdir(parents=True, exist_ok=True)
            found.copy_skill(scope.skills_source / name, scope.skills_target / name)
        except OSError as exc:
            result.failures.append(_failure(item, name, exc))
        else:
            result.successes.append(
                xa.ImportSuccess(item_type=item.item_type, cwd=cwd, source=name, target=name)
            )
    return result


def _grouped(results: list[xa.ImportTypeResult]) -> list[xa.ImportTypeResult]:
    groups: dict[str, xa.ImportTypeResult] = {}
    for one in results:
        group = groups.setdefault(one.item_type, xa.ImportTypeResult(item_type=one.item_type))
        group.successes.extend(one.successes)
        group.failures.extend(one.failures)
    return list(groups.values())


def _history_entry(
    import_id: str, provider_id: str | None, groups: list[xa.ImportTypeResult]
) -> xa.ImportHistory:
    return xa.ImportHistory(
        import_id=import_id,
        provider_id=provider_id,
        completed_at_ms=time.time_ns() // 1_000_000,
        successes=[s for g in groups for s in g.successes],
        failures=[f for g in groups for f in g.failures],
    )


async def import_items(
    state: ServerState, ctx: RequestContext, params: xa.ExternalAgentConfigImportParams
) -> xa.ImportId:
    """Import now; the progress and completion notifications follow the answer, to the asker."""
    import_id = str(uuid.uuid4())
    if not params.migration_items:
        return xa.ImportId(import_id=import_id)
    results: list[xa.ImportTypeResult] = []
    for item in params.migration_items:
        scope = _scope(state, item)
        if item.item_type not in (found.MCP, found.SKILLS, found.AGENTS_MD):
            continue
        if scope is None:
            results.append(xa.ImportTypeResult(item_type=item.item_type))
        elif item.item_type == found.MCP:
            results.append(await _import_servers(state, scope, item))
        else:
            results.append(await asyncio.to_thread(_import_files, scope, item))
    groups = _grouped(results)
    entry = _history_entry(import_id, params.provider_id, groups)
    await asyncio.to_thread(import_history.append, state.home, entry.wire())
    conn = ctx.connection

    def announce() -> None:
        for one in results:
            progress = xa.ExternalAgentConfigImportProgressNotification(
                import_id=import_id, item_type_results=[one]
            )
            send_notification([conn], sm.EXTERNAL_AGENT_IMPORT_PROGRESS, progress)
        done = xa.ExternalAgentConfigImportCompletedNotification(
            import_id=import_id, item_type_results=groups
        )
        send_notification([conn], sm.EXTERNAL_AGENT_IMPORT_COMPLETED, done)

    ctx.after_response(announce)
    return xa.ImportId(import_id=import_id)


async def record_history(
    state: ServerState, ctx: RequestContext, params: xa.ExternalAgentConfigImportHistoryRecordParams
) -> xa.ImportId:
    """An import another program did, recorded as given."""
    import_id = str(uuid.uuid4())
    entry = _history_entry(import_id, params.provider_id, params.item_type_results)
    await asyncio.to_thread(import_history.append, state.home, entry.wire())
    return xa.ImportId(import_id=import_id)


async def read_histories(
    state: ServerState, ctx: RequestContext, params: EmptyParams
) -> xa.ExternalAgentConfigImportHistoriesReadResponse:
    stored = await asyncio.to_thread(import_history.read, state.home)
    data = []
    for entry in reversed(stored):
        try:
            data.append(xa.ImportHistory.model_validate(entry))
        except ValidationError:
            continue  # an entry edited by hand into something else is left out, not fatal
    return xa.ExternalAgentConfigImportHistoriesReadResponse(data=data)
