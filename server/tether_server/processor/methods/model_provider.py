"""`modelProvider/list`, `modelProvider/capabilities/read`: the providers a settings page offers.

As Codex lists them: the providers configured under `[model_providers]` (sorted by id) as custom
gateways, then the built-in OpenAI one. The other built-ins (Ollama, LM Studio) are not listed,
even when selected; Codex does the same.
"""

from __future__ import annotations

from tether_protocol.v2 import model_provider as mp
from tether_server.config.builtins import BUILTIN_PROVIDERS
from tether_server.config.provider import ModelProviderInfo
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext

_OPENAI = mp.ModelProviderSummary(
    id="openai", name="OpenAI", can_edit=False, base_url=None, settings=mp.OpenaiProviderSettings()
)


def _auth(info: ModelProviderInfo) -> mp.GatewayAuth:
    if info.env_key:
        return mp.EnvGatewayAuth(env_key=info.env_key)
    # A token, headers or OpenAI auth are set outside the form's fields: the form keeps them.
    external = (
        info.requires_openai_auth,
        info.experimental_bearer_token,
        info.http_headers,
        info.env_http_headers,
        info.auth,
    )
    if any(external):
        return mp.ExternalGatewayAuth(env_key=None)
    return mp.NoneGatewayAuth()


def summary(provider_id: str, info: ModelProviderInfo) -> mp.ModelProviderSummary:
    return mp.ModelProviderSummary(
        id=provider_id,
        name=info.display_name(provider_id),
        can_edit=True,
        base_url=info.base_url,
        settings=mp.CustomGatewayProviderSettings(auth=_auth(info)),
    )


async def provider_list(
    state: ServerState, ctx: RequestContext, params: mp.ModelProviderListParams
) -> mp.ModelProviderListResponse:
    """Custom providers, then OpenAI; the default is fixed when a `-c` flag chose it."""
    loaded = state.config
    providers = loaded.config.model_providers
    custom = [summary(pid, info) for pid, info in sorted(providers.items()) if pid not in BUILTIN_PROVIDERS]
    return mp.ModelProviderListResponse(
        data=[*custom, _OPENAI],
        default_provider_id=loaded.config.model_provider,
        can_change_default=loaded.origins.get("model_provider") != "cli",
    )


async def capabilities_read(
    state: ServerState, ctx: RequestContext, params: mp.ModelProviderCapabilitiesReadParams
) -> mp.ModelProviderCapabilitiesReadResponse:
    """Codex answers both true for every provider it was measured with (OpenAI and custom)."""
    return mp.ModelProviderCapabilitiesReadResponse(image_generation=True, web_search=True)
