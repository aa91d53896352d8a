"""`config/read`, `config/value/write`, `config/batchWrite`, `configRequirements/read`."""

from __future__ import annotations

import asyncio

from tether_protocol.common import EmptyParams
from tether_protocol.v2 import config as cfgw
from tether_server.config.layers import read_config
from tether_server.config.requirements import load_requirements
from tether_server.config.write import OVERRIDDEN_MESSAGE, Edit, WriteResult, write_config
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
    """The managed requirements of the system config folder's requirements.toml, else null."""
    req = await asyncio.to_thread(load_requirements)
    wire = req.wire() if req is not None else None
    return cfgw.ConfigRequirementsReadResponse(requirements=wire, supports_independent_speed_modes=True)


async def config_read(
    state: ServerState, ctx: RequestContext, params: cfgw.ConfigReadParams
) -> cfgw.ConfigReadResponse:
    """The config seen from `cwd` (its trusted project layers too), with the layers when asked."""
    loaded = state.config
    wire, origins, layers = await asyncio.to_thread(read_config, loaded, params.cwd)
    return cfgw.ConfigReadResponse.model_validate(
        {
            "config": wire,
            "origins": origins,
            "layers": [layer.wire() for layer in layers] if params.include_layers else None,
        }
    )
