"""The method table's skill management (`skills/extraRoots/set`, `skills/config/write`).
`methods.CLIENT_METHODS` takes every spec of this module too; `skills/list` is in `methods`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether_protocol.lazy_models import models
from tether_protocol.spec import MethodSpec

# The models load on first use (lazy_models); mypy reads the real modules.
if TYPE_CHECKING:
    from tether_protocol.v2 import skills as sk
else:
    sk = models("tether_protocol.v2.skills")

SKILLS_EXTRA_ROOTS_SET = MethodSpec(
    "skills/extraRoots/set",
    sk.SkillsExtraRootsSetParams,
    sk.SkillsExtraRootsSetResponse,
    doc="Replace the extra folders whose skills every working directory sees.",
)
SKILLS_CONFIG_WRITE = MethodSpec(
    "skills/config/write",
    sk.SkillsConfigWriteParams,
    sk.SkillsConfigWriteResponse,
    doc="Enable or disable a skill, by its SKILL.md path or its name, in config.toml.",
)
