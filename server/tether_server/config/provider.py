"""A model provider entry (`[model_providers.<id>]`) and how its API key is found."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from tether_server.errors import ConfigError

OPENAI_KEY_VAR = "OPENAI_API_KEY"


class ModelProviderInfo(BaseModel):
    """One model provider, with Codex's `model_providers.<id>` key names."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: StrictStr | None = None
    base_url: StrictStr | None = None
    env_key: StrictStr | None = None
    env_key_instructions: StrictStr | None = None
    experimental_bearer_token: StrictStr | None = None
    wire_api: Literal["responses", "chat"] = "responses"
    query_params: dict[str, StrictStr] | None = None
    http_headers: dict[str, StrictStr] | None = None
    env_http_headers: dict[str, StrictStr] | None = None
    request_max_retries: StrictInt = Field(default=4, ge=0)
    stream_max_retries: StrictInt = Field(default=5, ge=0)
    stream_idle_timeout_ms: StrictInt = Field(default=300_000, gt=0)
    websocket_connect_timeout_ms: StrictInt = Field(default=15_000, gt=0)
    requires_openai_auth: StrictBool = False
    supports_websockets: StrictBool = False
    # Codex's command-based auth and AWS settings: accepted so configs load, not acted on.
    auth: Any = None
    aws: Any = None

    def display_name(self, provider_id: str) -> str:
        """The name to show a user: the configured `name`, else the table's id."""
        return self.name or provider_id


def show(value: object) -> str:
    """A short JSON rendering of a bad value for an error message."""
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def takes_stored_key(provider: ModelProviderInfo) -> bool:
    """Whether the key `tether login` stored stands in for this provider's unset variable.

    It does for providers that authenticate as OpenAI: `requires_openai_auth`, or an `env_key`
    of `OPENAI_API_KEY` (the variable auth.json's key replaces, as in Codex).
    """
    return provider.requires_openai_auth or provider.env_key == OPENAI_KEY_VAR


def resolve_api_key(
    provider: ModelProviderInfo, environ: Mapping[str, str], stored: str | None = None
) -> str | None:
    """Find the bearer token for `provider`.

    Args:
        provider: the provider entry.
        environ: the daemon's environment (passed in so callers control it).
        stored: the API key `tether login` stored, if any (see `takes_stored_key`).

    Returns:
        `experimental_bearer_token` if set, else the value of `env_key`, else the stored key
        when the provider takes it; None when the provider needs no key (no `env_key`), as
        local servers like ollama do.

    Raises:
        ConfigError: the provider's key is found nowhere.
    """
    if provider.experimental_bearer_token:
        return provider.experimental_bearer_token
    value = environ.get(provider.env_key, "").strip() if provider.env_key else ""
    if value:
        return value
    if stored and takes_stored_key(provider):
        return stored
    if provider.env_key is None:
        return None
    hint = provider.env_key_instructions or f"set {provider.env_key} in the daemon's environment"
    if takes_stored_key(provider):
        hint += ", or store a key with `printenv OPENAI_API_KEY | tether login --with-api-key`"
    who = provider.name or "(unnamed)"
    raise ConfigError(
        f"missing environment variable {provider.env_key} for model provider {who}; {hint}",
        key="model_provider",
    )
