"""The model catalogue `model/list` offers for Responses providers: Codex 0.169.0's bundled presets.

Facts only (ids, names, efforts and their defaults, upgrades, hidden flags, tiers), kept in
`model_catalog.json` in Codex's order; the descriptions are Tether's own words.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

_FILE = Path(__file__).with_name("model_catalog.json")


@cache
def _data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_FILE.read_text(encoding="utf-8"))
    return data


def catalogue(include_hidden: bool) -> list[dict[str, Any]]:
    """The presets as `Model` objects in wire shape, hidden ones only when asked."""
    data = _data()
    efforts, tiers = data["effortDescriptions"], data["serviceTierDescriptions"]
    entries = []
    for m in data["models"]:
        if m["hidden"] and not include_hidden:
            continue
        upgrade = m["upgrade"]
        entries.append(
            {
                "id": m["id"],
                "model": m["id"],
                "upgrade": upgrade,
                "upgradeInfo": {"model": upgrade} if upgrade else None,
                "availabilityNux": None,
                "displayName": m["displayName"],
                "description": m["description"],
                "modelSpecialty": m["modelSpecialty"],
                "hidden": m["hidden"],
                "supportedReasoningEfforts": [
                    {"reasoningEffort": e, "description": efforts[e]} for e in m["efforts"]
                ],
                "defaultReasoningEffort": m["defaultReasoningEffort"],
                "inputModalities": m["inputModalities"],
                "supportsPersonality": m["supportsPersonality"],
                "multiAgentVersion": m["multiAgentVersion"],
                "additionalSpeedTiers": m["additionalSpeedTiers"],
                "serviceTiers": [
                    {"id": tid, "name": name, "description": tiers[tid]} for tid, name in m["serviceTiers"]
                ],
                "defaultServiceTier": m["defaultServiceTier"],
                "availableAccessPrograms": None,
                "isDefault": m["isDefault"],
            }
        )
    return entries
