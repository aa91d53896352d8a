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


MergeStrategy = Literal["replace", "upsert"]
WriteStatus = Literal["ok", "okOverridden"]


class ConfigEdit(WireModel):
    """One key to set: a dotted `keyPath` and its JSON `value` (`null` removes the key)."""

    key_path: str
    value: JsonValue
    merge_strategy: MergeStrategy


class ConfigValueWriteParams(WireModel):
    """`config/value/write` params."""

    key_path: str
    value: JsonValue
    merge_strategy: MergeStrategy
    file_path: str | None = None
    expected_version: str | None = None


class ConfigBatchWriteParams(WireModel):
    """`config/batchWrite` params: the edits are applied together or not at all."""

    edits: list[ConfigEdit]
    file_path: str | None = None
    expected_version: str | None = None
    reload_user_config: bool = False


class OverriddenMetadata(WireModel):
    """A written key that a higher layer (a `-c` flag) still masks."""

    message: str
    overriding_layer: ConfigLayerMetadata
    effective_value: JsonValue


class ConfigWriteResponse(WireModel):
    """Result of both config writes: the file written and its new version."""

    status: WriteStatus
    version: str
    file_path: str
    overridden_metadata: OverriddenMetadata | None = None


class ConfigRequirementsReadResponse(WireModel):
    """Managed requirements (`requirements.toml`, MDM); Tether has none, so `requirements` is null."""

    requirements: JsonValue = None
    supports_independent_speed_modes: bool | None = None
