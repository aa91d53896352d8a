"""`skills/list`: the skills a thread in each working directory would see."""

from __future__ import annotations

from pathlib import Path

from tether_protocol.v2 import workspace as ws
from tether_server import safe_read
from tether_server.config.skills import discover
from tether_server.errors import InternalError
from tether_server.processor.methods.hooks import cwds_or_default
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext


async def skills_list(
    state: ServerState, ctx: RequestContext, params: ws.SkillsListParams
) -> ws.SkillsListResponse:
    entries = []
    deps = state.threads.deps
    private = (*deps.private_paths, *deps.hidden_paths)
    for cwd in cwds_or_default(params.cwds):
        # Off the loop: a project's skills folder is whatever the model or a clone made of it.
        try:
            scan = await safe_read.off_loop(discover, Path(cwd), state.home, None, private)
        except TimeoutError:
            raise InternalError(f"reading the skills of {cwd} timed out") from None
        skills = [
            ws.SkillMetadata(
                name=s.name,
                description=s.description,
                path=str(s.path),
                scope=s.scope,
                short_description=s.short_description,
            )
            for s in scan.skills
        ]
        errors = [ws.SkillErrorInfo(path=str(path), message=message) for path, message in scan.errors]
        entries.append(ws.SkillsListEntry(cwd=cwd, skills=skills, errors=errors))
    return ws.SkillsListResponse(data=entries)
