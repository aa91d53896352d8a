"""Enabling and disabling skills: the `[[skills.config]]` entries of config.toml, as Codex keeps them.

Each entry names one skill by `path` (its SKILL.md) or by `name`, with `enabled`. A skill is
disabled when any entry naming it says `enabled = false`; a disabled skill is still listed
(`enabled: false`) but left out of the model's context. `skills/config/write` with
`enabled: false` adds an entry for its selector (once); with `enabled: true` it removes the
entries of that selector, so a skill disabled by name stays disabled when enabled by path.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # tomlkit (~50 ms of imports) loads with the first skills/config/write
    from tomlkit.items import AoT

SelectorKind = Literal["path", "name"]


@dataclass(frozen=True)
class Selector:
    """One `[[skills.config]]` entry."""

    kind: SelectorKind
    value: str
    enabled: bool


def selectors_of(skills_table: Any) -> list[Selector]:
    """The entries of a parsed `[skills]` table; malformed entries are ignored."""
    entries = skills_table.get("config") if isinstance(skills_table, dict) else None
    found: list[Selector] = []
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict) or not isinstance(entry.get("enabled", True), bool):
            continue
        enabled = bool(entry.get("enabled", True))
        for kind in ("path", "name"):
            value = entry.get(kind)
            if isinstance(value, str) and value:
                found.append(Selector(kind, value, enabled))
                break
    return found


def read_selectors(config_toml: Path) -> list[Selector]:
    """The entries of a config.toml (none when it is missing or unreadable: the daemon's own
    config load reports a broken file). Blocking: read off the event loop."""
    return selectors_of(_skills_table(config_toml))


def read_entries(config_toml: Path) -> Any:
    """The raw `skills.config` array of a config.toml, as written (None: none)."""
    table = _skills_table(config_toml)
    return table.get("config") if isinstance(table, dict) else None


def _skills_table(config_toml: Path) -> Any:
    try:
        with config_toml.open("rb") as handle:
            return tomllib.load(handle).get("skills")
    except (OSError, tomllib.TOMLDecodeError):
        return None


def is_enabled(name: str, path: Path, selectors: Sequence[Selector]) -> bool:
    """Whether the skill `name` at `path` is enabled under `selectors`."""
    where = os.path.normpath(path)
    for selector in selectors:
        if selector.enabled:
            continue
        if selector.kind == "name" and selector.value == name:
            return False
        if selector.kind == "path" and os.path.normpath(selector.value) == where:
            return False
    return True


def edited_entries(current: Any, kind: SelectorKind, value: str, enabled: bool) -> AoT | None:
    """The `skills.config` array after a write (None: no entry left, the key goes).

    `current` is the array as parsed; entries of other selectors are kept as they are.
    """
    entries = [e for e in current if isinstance(e, dict)] if isinstance(current, list) else []
    kept: list[dict[str, Any]] = []
    present = False
    for entry in entries:
        if _selects(entry, kind, value):
            if enabled or present:
                continue
            entry = {**entry, "enabled": False}
            present = True
        kept.append(dict(entry))
    if not enabled and not present:
        kept.append({kind: value, "enabled": False})
    if not kept:
        return None
    import tomlkit

    array = tomlkit.aot()
    for entry in kept:
        table = tomlkit.table()
        for key, item in entry.items():
            table[key] = item
        array.append(table)
    return array


def _selects(entry: dict[str, Any], kind: SelectorKind, value: str) -> bool:
    other = "name" if kind == "path" else "path"
    if entry.get(other):
        return False
    found = entry.get(kind)
    if not isinstance(found, str):
        return False
    return os.path.normpath(found) == os.path.normpath(value) if kind == "path" else found == value
