"""Managing skills: extra skill folders, enabling and disabling skills, and `skills/changed`."""

from __future__ import annotations

from pydantic import Field

from tether_protocol.common import WireModel


class SkillsExtraRootsSetParams(WireModel):
    """`skills/extraRoots/set` params: absolute folders whose skills are listed as `user` skills."""

    extra_roots: list[str]


class SkillsExtraRootsSetResponse(WireModel):
    """`skills/extraRoots/set` result (empty)."""


class SkillsConfigWriteParams(WireModel):
    """`skills/config/write` params: exactly one selector (`path` or `name`) and the wanted state."""

    enabled: bool
    name: str | None = Field(default=None, description="Name-based selector.")
    path: str | None = Field(default=None, description="Path-based selector.")


class SkillsConfigWriteResponse(WireModel):
    """`skills/config/write` result."""

    effective_enabled: bool


class SkillsChangedNotification(WireModel):
    """Skill files under a watched folder changed: re-run `skills/list` when fresh metadata is needed."""
