"""`model/list` and `collaborationMode/list`: what a model picker offers."""

from __future__ import annotations

from tether_protocol.v2 import collaboration as collab
from tether_protocol.v2 import model as mdl
from tether_server.processor.state import ServerState
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
    cfg = state.config.config
    provider = params.model_provider or cfg.model_provider
    slugs = [cfg.model]
    for extra in ("gpt-5.5", "gpt-5.4", "gpt-5.4-mini"):
        if provider == "openai" and extra not in slugs:
            slugs.append(extra)
    data = [_model_entry(s, provider, s == cfg.model) for s in slugs]
    start = int(params.cursor) if params.cursor and str(params.cursor).isdigit() else 0
    limit = params.limit or len(data)
    page = data[start : start + limit]
    nxt = str(start + limit) if start + limit < len(data) else None
    return mdl.ModelListResponse(data=page, next_cursor=nxt)


async def collaboration_modes(
    state: ServerState, ctx: RequestContext, params: collab.CollaborationModeListParams
) -> collab.CollaborationModeListResponse:
    model = state.config.config.model
    return collab.CollaborationModeListResponse(
        data=[
            collab.CollaborationModeMask(name="Default", mode="default", model=model),
            collab.CollaborationModeMask(name="Plan", mode="plan", model=model),
        ]
    )
