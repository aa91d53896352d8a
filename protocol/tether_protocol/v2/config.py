"""`config/read`: the effective configuration and where each key came from."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from tether_protocol.common import JsonValue, WireModel


class UserLayerSource(WireModel):
    """The user's `config.toml`."""

    type: Literal["user"] = "user"
    file: str
    profile: str | None = None


class ProjectLayerSource(WireModel):
    """A project's `.codex/` folder."""

    type: Literal["project"] = "project"
    dot_codex_folder: str


class SystemLayerSource(WireModel):
    """The system-wide config file."""

    type: Literal["system"] = "system"
    file: str


class PackagedDefaultsLayerSource(WireModel):
    """Defaults shipped with the binary."""

    type: Literal["packagedDefaults"] = "packagedDefaults"
    file: str


class SessionFlagsLayerSource(WireModel):
    """Command-line `-c` overrides."""

    type: Literal["sessionFlags"] = "sessionFlags"


ConfigLayerSource = TypeAliasType(
    "ConfigLayerSource",
    Annotated[
        UserLayerSource
        | ProjectLayerSource
        | SystemLayerSource
        | PackagedDefaultsLayerSource
        | SessionFlagsLayerSource,
        Field(discriminator="type"),
    ],
)


class ConfigLayerMetadata(WireModel):
    """Which layer set a key, and that layer's version."""

    name: ConfigLayerSource
    version: str


class ConfigLayer(WireModel):
    """One configuration layer with its raw content."""

    name: ConfigLayerSource
    version: str
    config: JsonValue
    disabled_reason: str | None = None


class ConfigReadParams(WireModel):
    """`config/read` params."""

    include_layers: bool = False
    cwd: str | None = None


class ConfigReadResponse(WireModel):
    """`config/read` result; `config` keys are snake_case, mirroring `config.toml`."""

    config: dict[str, JsonValue]
    origins: dict[str, ConfigLayerMetadata] = Field(default_factory=dict)
    layers: list[ConfigLayer] | None = None
