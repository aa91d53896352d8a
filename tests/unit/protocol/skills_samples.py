"""Reference samples of the skill management methods (`skills/extraRoots/set`, `skills/config/write`)."""

from __future__ import annotations

from tether_protocol.common import WireModel
from tether_protocol.v2 import skills as sk


def skills_samples() -> list[tuple[str, WireModel]]:
    return [
        ("SkillsExtraRootsSetParams", sk.SkillsExtraRootsSetParams(extra_roots=["/opt/skills"])),
        ("SkillsExtraRootsSetResponse", sk.SkillsExtraRootsSetResponse()),
        ("SkillsConfigWriteParams", sk.SkillsConfigWriteParams(enabled=False, name="lint")),
        ("SkillsConfigWriteParams", sk.SkillsConfigWriteParams(enabled=True, path="/w/lint/SKILL.md")),
        ("SkillsConfigWriteResponse", sk.SkillsConfigWriteResponse(effective_enabled=False)),
        ("SkillsChangedNotification", sk.SkillsChangedNotification()),
    ]
