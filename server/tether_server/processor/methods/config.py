"""`config/read`, `config/value/write`, `config/batchWrite`, `configRequirements/read`; for now also
`hooks/list`, `skills/list`, `plugin/installed` and the Bedrock check (to move to modules of their own)."""

from __future__ import annotations

from pathlib import Path

from tether_protocol.common import EmptyParams
from tether_protocol.v2 import config as cfgw
from tether_protocol.v2 import workspace as ws
from tether_server import safe_read
from tether_server.config import config_to_wire, origins_to_wire
from tether_server.config.hooks import configured_hooks
from tether_server.config.skills import discover
from tether_server.config.write import OVERRIDDEN_MESSAGE, Edit, WriteResult, write_config
from tether_server.errors import InternalError
from tether_server.processor.settings import default_cwd
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext


def _response(state: ServerState, result: WriteResult) -> cfgw.ConfigWriteResponse:
    # New threads read the daemon's config, so the written file takes effect for them at once.
    state.config = result.loaded
    overridden = None
    if result.overridden is not None:
        overridden = cfgw.OverriddenMetadata.model_validate(
            {
                "message": OVERRIDDEN_MESSAGE,
                "overridingLayer": {
                    "name": {"type": "sessionFlags"},
                    "version": result.loaded.versions.get("cli", ""),
                },
                "effectiveValue": result.overridden.effective_value,
            }
        )
    return cfgw.ConfigWriteResponse(
        status="okOverridden" if overridden else "ok",
        version=result.version,
        file_path=str(result.path),
        overridden_metadata=overridden,
    )


async def config_value_write(
    state: ServerState, ctx: RequestContext, params: cfgw.ConfigValueWriteParams
) -> cfgw.ConfigWriteResponse:
    edit = Edit(params.key_path, params.value, params.merge_strategy)
    result = write_config(
        state.config, [edit], expected_version=params.expected_version, file_path=params.file_path
    )
    return _response(state, result)


async def config_batch_write(
    state: ServerState, ctx: RequestContext, params: cfgw.ConfigBatchWriteParams
) -> cfgw.ConfigWriteResponse:
    edits = [Edit(e.key_path, e.value, e.merge_strategy) for e in params.edits]
    result = write_config(
        state.config, edits, expected_version=params.expected_version, file_path=params.file_path
    )
    return _response(state, result)


async def config_requirements_read(
    state: ServerState, ctx: RequestContext, params: EmptyParams
) -> cfgw.ConfigRequirementsReadResponse:
    return cfgw.ConfigRequirementsReadResponse(requirements=None, supports_independent_speed_modes=True)


def _cwds(cwds: list[str]) -> list[str]:
    return cwds or [str(default_cwd())]


async def hooks_list(
    state: ServerState, ctx: RequestContext, params: ws.HooksListParams
) -> ws.HooksListResponse:
    """The command hooks of config.toml, as Codex lists them; Tether runs none (a warning says so)."""
    scan = configured_hooks(state.config.config.hooks, state.config.path)
    hooks = [
        ws.HookMetadata(
            key=h.key,
            event_name=h.event_name,
            command=h.command,
            matcher=h.matcher,
            timeout_sec=h.timeout_sec,
            status_message=h.status_message,
            source_path=str(h.source_path),
            display_order=h.display_order,
            current_hash=h.current_hash,
            trust_status="untrusted",
        )
        for h in scan.hooks
    ]
    errors = [ws.HookErrorInfo(path=str(state.config.path), message=m) for m in scan.errors]
    return ws.HooksListResponse(
        data=[
            ws.HooksListEntry(cwd=cwd, hooks=hooks, warnings=scan.warnings, errors=errors)
            for cwd in _cwds(params.cwds)
        ]
    )


async def skills_list(
    state: ServerState, ctx: RequestContext, params: ws.SkillsListParams
) -> ws.SkillsListResponse:
    entries = []
    deps = state.threads.deps
    private = (*deps.private_paths, *deps.hidden_paths)
    for cwd in _cwds(params.cwds):
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


async def plugin_installed(
    state: ServerState, ctx: RequestContext, params: ws.PluginInstalledParams
) -> ws.PluginInstalledResponse:
    return ws.PluginInstalledResponse()


async def bedrock_check(
    state: ServerState, ctx: RequestContext, params: EmptyParams
) -> ws.BedrockCheckGovCloudRequirementsResponse:
    return ws.BedrockCheckGovCloudRequirementsResponse()


async def config_read(
    state: ServerState, ctx: RequestContext, params: cfgw.ConfigReadParams
) -> cfgw.ConfigReadResponse:
    return cfgw.ConfigReadResponse.model_validate(
        {"config": config_to_wire(state.config), "origins": origins_to_wire(state.config), "layers": None}
    )
