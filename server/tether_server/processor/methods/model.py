"""`model/list` and `collaborationMode/list`: what a model picker offers."""

from __future__ import annotations

import os

from tether_protocol.v2 import collaboration as collab
from tether_protocol.v2 import model as mdl
from tether_server.config import ModelProviderInfo, resolve_api_key
from tether_server.config.model_catalog import catalogue
from tether_server.errors import ConfigError
from tether_server.processor.methods.experimental_feature import page
from tether_server.processor.state import ServerState
from tether_server.providers.deferred import chat_models
from tether_server.rpc.context import RequestContext

_EFFORTS = (("low", "Fast responses"), ("medium", "Balanced"), ("high", "Deeper reasoning"))


def _model_entry(slug: str, provider: str, default: bool) -> mdl.Model:
    return mdl.Model(
        id=slug,
        model=slug,
        display_name=slug,
        description=f"{slug} via the {provider} provider",
        is_default=default,
        supported_reasoning_efforts=[
            mdl.ReasoningEffortOption(reasoning_effort=e, description=d) for e, d in _EFFORTS
        ],
        default_reasoning_effort="medium",
        input_modalities=["text", "image"],
    )


async def model_list(
    state: ServerState, ctx: RequestContext, params: mdl.ModelListParams
) -> mdl.ModelListResponse:
    """Codex 0.169.0's bundled presets for Responses providers (whatever the configured model, as
    Codex lists them); what the server has loaded for a chat (local) provider. Paged as Codex pages."""
    cfg = state.config.config
    provider = params.model_provider or cfg.model_provider
    info = cfg.model_providers.get(provider)
    if info is not None and info.wire_api == "chat":
        slugs = await _served_models(info)
        data = [_model_entry(s, provider, s == cfg.model) for s in slugs]
    else:
        data = [mdl.Model.model_validate(m) for m in catalogue(bool(params.include_hidden))]
    listed, next_cursor = page(data, params.cursor, params.limit, "models")
    return mdl.ModelListResponse(data=listed, next_cursor=next_cursor)


async def _served_models(info: ModelProviderInfo) -> list[str]:
    """What a chat server has loaded or installed: a local server's models are the user's own."""
    try:
        key = resolve_api_key(info, os.environ)
    except ConfigError:
        key = None
    models = await chat_models()  # httpx is not loaded at start
    served: list[str] = await models.list_models(info.base_url or "", api_key=key, headers=info.http_headers)
    return served


async def collaboration_modes(
    state: ServerState, ctx: RequestContext, params: collab.CollaborationModeListParams
) -> collab.CollaborationModeListResponse:
    # Codex 0.169.0's presets, whatever the config says (its model, `model_reasoning_effort` and
    # `plan_mode_reasoning_effort` change nothing here): Plan first, at medium effort.
    return collab.CollaborationModeListResponse(
        data=[
            collab.CollaborationModeMask(name="Plan", mode="plan", model=None, reasoning_effort="medium"),
            collab.CollaborationModeMask(name="Default", mode="default", model=None, reasoning_effort=None),
        ]
    )
