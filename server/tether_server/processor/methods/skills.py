"""`skills/list`, `skills/extraRoots/set`, `skills/config/write`, and the `skills/changed` watch."""

from __future__ import annotations

import os
from pathlib import Path

from tether_protocol import server_methods as sm
from tether_protocol.v2 import skills as sk
from tether_protocol.v2 import workspace as ws
from tether_server import safe_read
from tether_server.config.skills import SkillRoot, discover, repo_skill_roots, user_roots
from tether_server.config.skills_config import SelectorKind, edited_entries, read_entries, read_selectors
from tether_server.config.write import Edit, write_config
from tether_server.errors import InternalError, InvalidParams
from tether_server.processor.fs_rules import absolute
from tether_server.processor.methods.hooks import cwds_or_default
from tether_server.processor.skills_watch import SkillsWatch, folders_to_watch
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext
from tether_server.rpc.outgoing import send_notification

EXTRA = "extra"
ONE_SELECTOR = "skills/config/write requires exactly one of path or name"


async def skills_list(
    state: ServerState, ctx: RequestContext, params: ws.SkillsListParams
) -> ws.SkillsListResponse:
    # `forceReload` needs nothing: Tether keeps no skills cache, every list reads the folders.
    entries = []
    deps = state.threads.deps
    private = (*deps.private_paths, *deps.hidden_paths)
    added = deps.skill_roots.roots()
    try:
        selectors = await safe_read.off_loop(read_selectors, state.config.path)
    except TimeoutError:
        raise InternalError("reading the skills settings of config.toml timed out") from None
    watch_roots = [*user_roots(state.home), *(root.path for root in added)]
    for cwd in cwds_or_default(params.cwds):
        # Off the loop: a project's skills folder is whatever the model or a clone made of it.
        try:
            scan = await safe_read.off_loop(discover, Path(cwd), state.home, None, private, added, selectors)
            watch_roots += await safe_read.off_loop(_repo_roots, cwd)
        except TimeoutError:
            raise InternalError(f"reading the skills of {cwd} timed out") from None
        skills = [
            ws.SkillMetadata(
                name=s.name,
                description=s.description,
                path=str(s.path),
                scope=s.scope,
                enabled=s.enabled,
                short_description=s.short_description,
                plugin_id=s.plugin_id,
            )
            for s in scan.skills
        ]
        errors = [ws.SkillErrorInfo(path=str(path), message=message) for path, message in scan.errors]
        entries.append(ws.SkillsListEntry(cwd=cwd, skills=skills, errors=errors))
    await _follow(state, ctx, watch_roots)
    return ws.SkillsListResponse(data=entries)


async def skills_extra_roots_set(
    state: ServerState, ctx: RequestContext, params: sk.SkillsExtraRootsSetParams
) -> sk.SkillsExtraRootsSetResponse:
    # Codex takes folders that do not exist (yet) or are files: they list nothing.
    roots = [Path(absolute(raw)) for raw in params.extra_roots]
    state.threads.deps.skill_roots.set(EXTRA, [SkillRoot(root, "user") for root in roots])
    await _follow(state, ctx, roots)
    # As Codex: the answer follows a `skills/changed`, even when the roots are the same.
    send_notification(state.connections(), sm.SKILLS_CHANGED, sk.SkillsChangedNotification())
    return sk.SkillsExtraRootsSetResponse()


async def skills_config_write(
    state: ServerState, ctx: RequestContext, params: sk.SkillsConfigWriteParams
) -> sk.SkillsConfigWriteResponse:
    if bool(params.path) == bool(params.name):
        raise InvalidParams(ONE_SELECTOR)
    kind: SelectorKind = "path" if params.path else "name"
    value = absolute(params.path) if params.path else params.name or ""
    # Read and written without awaiting between them: no other write of this daemon interleaves
    # (and `write_config` holds the file lock against other writers).
    # (the file's own entries: the loaded config also holds `-c` flags, never written back).
    entries = edited_entries(read_entries(state.config.path), kind, value, params.enabled)
    result = write_config(state.config, [Edit("skills.config", entries)])
    state.config = result.loaded
    # Codex answers the state asked for, even where another entry still disables the skill.
    return sk.SkillsConfigWriteResponse(effective_enabled=params.enabled)


def _repo_roots(cwd: str) -> list[Path]:
    return repo_skill_roots(Path(os.path.abspath(cwd)))


async def _follow(state: ServerState, ctx: RequestContext, roots: list[Path]) -> None:
    """Watch `roots` for `skills/changed` while this connection is open."""
    if state.skills_watch is None:
        state.skills_watch = SkillsWatch(
            lambda: send_notification(state.connections(), sm.SKILLS_CHANGED, sk.SkillsChangedNotification())
        )
    try:
        folders = await safe_read.off_loop(folders_to_watch, roots, state.home / "skills")
    except TimeoutError:
        return  # a hung folder is not watched; listing still works
    state.skills_watch.follow(ctx.connection, roots, folders)
