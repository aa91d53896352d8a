"""`collaborationMode/list` (experimental): the collaboration mode presets a client can offer."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tether_protocol.common import WireModel


class CollaborationModeListParams(WireModel):
    """`collaborationMode/list` params (none)."""


class CollaborationModeMask(WireModel):
    """One preset: a mode and the settings it applies."""

    name: str
    mode: Literal["default", "plan"] | None = None
    model: str | None = None
    reasoning_effort: str | None = Field(default=None, alias="reasoning_effort")


class CollaborationModeListResponse(WireModel):
    """`collaborationMode/list` result."""

    data: list[CollaborationModeMask]
