"""`experimentalFeature/list`, `experimentalFeature/enablement/set` and `permissionProfile/list`."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictBool

from tether_protocol.common import WireModel

FeatureStage = Literal["beta", "underDevelopment", "stable", "deprecated", "removed"]


class ExperimentalFeatureListParams(WireModel):
    """`experimentalFeature/list` params: a page (`cursor` is an offset Codex prints as a string)."""

    cursor: str | None = None
    limit: int | None = Field(default=None, ge=0, le=2**32 - 1)
    thread_id: str | None = None


class ExperimentalFeature(WireModel):
    """One feature flag; `displayName`, `description` and `announcement` are set for beta ones."""

    name: str
    stage: FeatureStage
    display_name: str | None = None
    description: str | None = None
    announcement: str | None = None
    enabled: bool
    default_enabled: bool


class ExperimentalFeatureListResponse(WireModel):
    """`experimentalFeature/list` result."""

    data: list[ExperimentalFeature]
    next_cursor: str | None = None


class ExperimentalFeatureEnablementSetParams(WireModel):
    """`experimentalFeature/enablement/set` params: feature name -> enabled."""

    enablement: dict[str, StrictBool]


class ExperimentalFeatureEnablementSetResponse(WireModel):
    """`experimentalFeature/enablement/set` result: the entries that were applied."""

    enablement: dict[str, bool]


class PermissionProfileListParams(WireModel):
    """`permissionProfile/list` params."""

    cursor: str | None = None
    cwd: str | None = None
    limit: int | None = Field(default=None, ge=0, le=2**32 - 1)


class PermissionProfileSummary(WireModel):
    """One permission profile and whether the requirements allow it."""

    id: str
    description: str | None = None
    allowed: bool


class PermissionProfileListResponse(WireModel):
    """`permissionProfile/list` result."""

    data: list[PermissionProfileSummary]
    next_cursor: str | None = None
