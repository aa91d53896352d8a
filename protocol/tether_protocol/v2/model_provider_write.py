"""`modelProvider/config/write`: the provider form a settings page saves."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from tether_protocol.common import WireModel
from tether_protocol.v2.model_provider import ModelProviderSummary


class _Patch(WireModel):
    # The reference schema closes these objects: a misspelt field is refused, not dropped.
    model_config = ConfigDict(extra="forbid")


class CustomGatewayProviderSettingsPatch(_Patch):
    """A custom provider to create (no `providerId`) or edit; omitted fields keep their values."""

    type: Literal["customGateway"]
    provider_id: str | None = None
    name: str | None = None
    base_url: str | None = None
    env_key: str | None = None


class BedrockProviderSettingsPatch(_Patch):
    """AWS fields of a built-in Bedrock provider."""

    type: Literal["bedrock"]
    provider_id: Literal["amazon-bedrock", "amazon-bedrock-runtime"]
    profile: str | None = None
    region: str | None = None


class GcpProviderSettingsPatch(_Patch):
    """GCP fields of a built-in GCP provider."""

    type: Literal["gcp"]
    provider_id: Literal["gcp"]
    credential_file: str | None = None
    location: str | None = None
    project_id: str | None = None


ProviderSettingsPatch = Annotated[
    CustomGatewayProviderSettingsPatch | BedrockProviderSettingsPatch | GcpProviderSettingsPatch,
    Field(discriminator="type"),
]


class ModelProviderConfigWriteParams(_Patch):
    """`modelProvider/config/write` params."""

    settings: ProviderSettingsPatch


class ModelProviderConfigWriteResponse(WireModel):
    """`modelProvider/config/write` result: the provider as `modelProvider/list` now shows it."""

    provider: ModelProviderSummary
