"""`modelProvider/list` and `modelProvider/capabilities/read`: the providers a settings page shows."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tether_protocol.common import WireModel


class ModelProviderListParams(WireModel):
    """`modelProvider/list` params (none)."""


class NoneGatewayAuth(WireModel):
    """A custom provider that takes no key."""

    mode: Literal["none"] = "none"


class EnvGatewayAuth(WireModel):
    """A custom provider whose key is read from the variable `envKey`."""

    mode: Literal["environmentVariable"] = "environmentVariable"
    env_key: str


class ExternalGatewayAuth(WireModel):
    """Auth set outside the form's fields (a bearer token, headers, OpenAI auth): kept on edits."""

    mode: Literal["externallyConfigured"] = "externallyConfigured"
    env_key: str | None = None


GatewayAuth = NoneGatewayAuth | EnvGatewayAuth | ExternalGatewayAuth


class OpenaiProviderSettings(WireModel):
    """The built-in OpenAI provider."""

    type: Literal["openai"] = "openai"


class CustomGatewayProviderSettings(WireModel):
    """A provider of `[model_providers]`."""

    type: Literal["customGateway"] = "customGateway"
    auth: GatewayAuth = Field(discriminator="mode")


ProviderSettings = OpenaiProviderSettings | CustomGatewayProviderSettings


class ModelProviderSummary(WireModel):
    """One provider of the list."""

    id: str
    name: str
    can_edit: bool
    base_url: str | None = None
    settings: ProviderSettings = Field(discriminator="type")


class ModelProviderListResponse(WireModel):
    """`modelProvider/list` result."""

    data: list[ModelProviderSummary]
    default_provider_id: str
    can_change_default: bool


class ModelProviderCapabilitiesReadParams(WireModel):
    """`modelProvider/capabilities/read` params (none)."""


class ModelProviderCapabilitiesReadResponse(WireModel):
    """`modelProvider/capabilities/read` result: the hosted tools the provider offers."""

    image_generation: bool = Field(default=True)
    web_search: bool = Field(default=True)
