"""`model/list` and the `Model` catalog entry."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tether_protocol.common import JsonValue, WireModel

InputModality = Literal["text", "image", "audio"]


def _default_modalities() -> list[InputModality]:
    return ["text", "image"]


class ReasoningEffortOption(WireModel):
    """A reasoning effort a model supports."""

    reasoning_effort: str
    description: str


class ModelServiceTier(WireModel):
    """A service tier a model offers."""

    id: str
    name: str
    description: str


class ModelUpgradeInfo(WireModel):
    """Where to migrate from a retiring model."""

    model: str
    upgrade_copy: str | None = None
    model_link: str | None = None
    migration_markdown: str | None = None
    retirement_at: int | None = None


class ModelAvailabilityNux(WireModel):
    """A notice shown when a model becomes available."""

    message: str


class Model(WireModel):
    """One entry of the model catalog."""

    id: str
    model: str
    display_name: str
    description: str
    hidden: bool = False
    is_default: bool = False
    supported_reasoning_efforts: list[ReasoningEffortOption] = Field(default_factory=list)
    default_reasoning_effort: str
    input_modalities: list[InputModality] = Field(default_factory=_default_modalities)
    supports_personality: bool = False
    additional_speed_tiers: list[str] = Field(default_factory=list)
    service_tiers: list[ModelServiceTier] = Field(default_factory=list)
    default_service_tier: str | None = None
    upgrade: str | None = None
    upgrade_info: ModelUpgradeInfo | None = None
    availability_nux: ModelAvailabilityNux | None = None
    model_specialty: str | None = None
    multi_agent_version: Literal["disabled", "v1", "v2"] | None = None
    available_access_programs: JsonValue = None


class ModelListParams(WireModel):
    """`model/list` params."""

    cursor: str | None = None
    limit: int | None = None
    include_hidden: bool | None = None
    model_provider: str | None = None


class ModelListResponse(WireModel):
    """`model/list` result; the cursor is an offset string."""

    data: list[Model]
    next_cursor: str | None = None
