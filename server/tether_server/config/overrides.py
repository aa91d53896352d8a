"""Layering: `-c key=value` parsing, dotted-key tables, deep merge and leaf listing."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from tether_server.errors import ConfigError

Table = dict[str, Any]


def parse_cli_overrides(overrides: Sequence[str]) -> Table:
    """Turn `-c key=value` strings into one nested table.

    The key is a dotted path (TOML key syntax, so `projects."/a.b".x` works). The value is
    parsed as a TOML value; when it does not parse it is taken as a plain string, so
    `-c model=o3` means `model = "o3"`.

    Raises:
        ConfigError: an override has no `=` or an empty key.
    """
    table: Table = {}
    for raw in overrides:
        key, sep, value = raw.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"invalid -c override `{raw}`: expected key=value")
        set_dotted(table, split_key(key.strip()), parse_value(value.strip()))
    return table


def split_key(key: str) -> list[str]:
    """Split a dotted key, honouring TOML quoting; fall back to plain dots."""
    try:
        parsed = tomllib.loads(f"{key} = 0")
    except tomllib.TOMLDecodeError:
        return key.split(".")
    parts: list[str] = []
    node: Any = parsed
    while isinstance(node, dict):
        (name, node), *_ = node.items()
        parts.append(name)
    return parts


def parse_value(text: str) -> Any:
    """A TOML value, or the text itself when it is not one."""
    try:
        return tomllib.loads(f"_ = {text}")["_"]
    except tomllib.TOMLDecodeError:
        return text


def set_dotted(table: Table, path: Sequence[str], value: Any) -> None:
    """Set `value` at `path`, creating (or replacing non-table) intermediate tables."""
    node = table
    for name in path[:-1]:
        child = node.get(name)
        if not isinstance(child, dict):
            child = node[name] = {}
        node = child
    node[path[-1]] = value


def dotted_to_table(values: Mapping[str, Any]) -> Table:
    """`{"a.b": 1}` → `{"a": {"b": 1}}` (JSON overrides from the protocol use plain dots)."""
    table: Table = {}
    for key, value in values.items():
        set_dotted(table, key.split("."), value)
    return table


def deep_merge(base: Mapping[str, Any], overlay: Mapping[str, Any]) -> Table:
    """A new table: `overlay` over `base`, merging tables key by key; other values replace."""
    merged: Table = dict(base)
    for key, value in overlay.items():
        below = merged.get(key)
        if isinstance(value, Mapping) and isinstance(below, Mapping):
            merged[key] = deep_merge(below, value)
        else:
            merged[key] = value
    return merged


def leaf_paths(table: Mapping[str, Any], prefix: str = "") -> Iterator[str]:
    """Dotted paths of every non-table value (arrays count as leaves)."""
    for key, value in table.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, Mapping) and value:
            yield from leaf_paths(value, path)
        else:
            yield path
