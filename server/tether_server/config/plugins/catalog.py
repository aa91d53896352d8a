"""Reading a marketplace (`.agents/plugins/marketplace.json`) and its plugins' manifests.

Formats as Codex's: a marketplace file names the marketplace and lists plugins, each with a
`source` (`"./path"` or `{"source": "local", "path": "./path"}`, relative to the marketplace root)
and a `policy` (`installation`, `authentication`); a plugin folder holds `.codex-plugin/plugin.json`
(`name`, `version`, `description`, `interface`, and where its `skills`, `mcpServers` and `hooks`
are). A marketplace is whatever someone published, so every path it names must stay inside its
root (symlinks resolved) and every name is a plain file name; an entry that breaks a rule is
skipped, as Codex skips a malformed entry instead of failing the whole marketplace. Blocking.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tether_server import safe_read

MARKETPLACE_FILE = Path(".agents") / "plugins" / "marketplace.json"
MANIFEST_FILE = Path(".codex-plugin") / "plugin.json"
MAX_JSON_BYTES = 1024 * 1024
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
INSTALL_POLICIES = ("NOT_AVAILABLE", "AVAILABLE", "INSTALLED_BY_DEFAULT")
AUTH_POLICIES = ("ON_INSTALL", "ON_USE")


class CatalogError(ValueError):
    """A marketplace or manifest that cannot be used; the message says why, as Codex words it."""


def valid_name(name: object) -> bool:
    return isinstance(name, str) and NAME.fullmatch(name) is not None and ".." not in name


@dataclass(frozen=True)
class Manifest:
    """A plugin's `.codex-plugin/plugin.json`."""

    name: str
    version: str | None
    description: str | None
    interface: dict[str, Any]
    keywords: list[str]
    skills: Path | None
    mcp_servers: dict[str, Any]
    hooks: dict[str, Any]
    hooks_file: str | None


@dataclass(frozen=True)
class PluginEntry:
    """One plugin a marketplace offers, with its manifest when it could be read."""

    name: str
    path: Path
    install_policy: str
    auth_policy: str
    category: str | None
    manifest: Manifest | None


@dataclass(frozen=True)
class Marketplace:
    """A marketplace file, read."""

    name: str
    root: Path
    file: Path
    display_name: str | None
    plugins: list[PluginEntry] = field(default_factory=list)


def marketplace_file(root: Path) -> Path:
    return root / MARKETPLACE_FILE


def _json(path: Path, root: Path) -> Any:
    try:
        data = safe_read.read_prefix(path, MAX_JSON_BYTES, root=root, contained=True)
    except safe_read.Refused as exc:
        raise CatalogError(f"not read: {exc}") from None
    except OSError as exc:
        raise CatalogError(exc.strerror or "cannot read") from None
    try:
        return json.loads(data.decode("utf-8", errors="replace"))
    except ValueError as exc:
        raise CatalogError(f"invalid JSON: {exc}") from None


def inside(root: Path, relative: object) -> Path | None:
    """`relative` under `root` when it is a relative path that stays there once resolved."""
    if not isinstance(relative, str) or not relative or "\x00" in relative or Path(relative).is_absolute():
        return None
    real_root = root.resolve()
    target = (real_root / relative).resolve()
    return target if target == real_root or real_root in target.parents else None


def read_marketplace(root: Path) -> Marketplace:
    """The marketplace whose root folder is `root`.

    Raises:
        CatalogError: no marketplace file, or one without a usable `name`.
    """
    file = marketplace_file(root)
    if not file.is_file():
        raise CatalogError(
            f"invalid marketplace file `{root}`: marketplace root does not contain a supported manifest"
        )
    data = _json(file, root)
    if not isinstance(data, dict) or not valid_name(data.get("name")):
        raise CatalogError(f"invalid marketplace file `{file}`: missing or invalid `name`")
    interface = data.get("interface")
    display = interface.get("displayName") if isinstance(interface, dict) else None
    market = Marketplace(data["name"], root, file, display if isinstance(display, str) else None)
    entries = data.get("plugins")
    seen: set[str] = set()
    for raw in entries if isinstance(entries, list) else []:
        entry = _entry(root, raw)
        if entry is not None and entry.name not in seen:
            seen.add(entry.name)
            market.plugins.append(entry)
    return market


def _entry(root: Path, raw: Any) -> PluginEntry | None:
    if not isinstance(raw, dict) or not valid_name(raw.get("name")):
        return None
    source = raw.get("source")
    if isinstance(source, dict) and source.get("source") == "local":
        source = source.get("path")
    path = inside(root, source) if isinstance(source, str) and source.startswith("./") else None
    if path is None:
        return None  # git, npm or URL sources, or a path outside the marketplace
    raw_policy = raw.get("policy")
    policy: dict[str, Any] = raw_policy if isinstance(raw_policy, dict) else {}
    install = policy.get("installation", "AVAILABLE")
    auth = policy.get("authentication", "ON_INSTALL")
    category = raw.get("category")
    try:
        manifest: Manifest | None = read_manifest(path)
    except CatalogError:
        manifest = None
    return PluginEntry(
        raw["name"],
        path,
        install if install in INSTALL_POLICIES else "AVAILABLE",
        auth if auth in AUTH_POLICIES else "ON_INSTALL",
        category if isinstance(category, str) else None,
        manifest,
    )


def read_manifest(plugin_root: Path) -> Manifest:
    """The manifest of the plugin folder `plugin_root` (its `mcpServers` and `hooks` files read).

    Raises:
        CatalogError: no readable manifest, or one without a usable `name`.
    """
    data = _json(plugin_root / MANIFEST_FILE, plugin_root)
    if not isinstance(data, dict) or not valid_name(data.get("name")):
        raise CatalogError(f"invalid plugin manifest `{plugin_root / MANIFEST_FILE}`")
    version = data.get("version")
    description = data.get("description")
    raw_interface = data.get("interface")
    interface: dict[str, Any] = raw_interface if isinstance(raw_interface, dict) else {}
    keywords = [k for k in data.get("keywords") or [] if isinstance(k, str)]
    skills = inside(plugin_root, data.get("skills", "./skills/"))
    mcp = _table_or_file(plugin_root, data.get("mcpServers", "./.mcp.json"), "mcpServers")
    hooks_ref = data.get("hooks", "./hooks/hooks.json")
    hooks = _table_or_file(plugin_root, hooks_ref, "hooks")
    hooks_file = None
    if isinstance(hooks_ref, str) and hooks:
        hooks_file = Path(hooks_ref).as_posix().removeprefix("./")
    return Manifest(
        data["name"],
        version if isinstance(version, str) else None,
        description if isinstance(description, str) else None,
        interface,
        keywords,
        skills if skills is not None and skills.is_dir() else None,
        mcp,
        hooks,
        hooks_file,
    )


def _table_or_file(plugin_root: Path, ref: Any, key: str) -> dict[str, Any]:
    """An inline table, or the `key` table of the JSON file `ref` names inside the plugin."""
    if isinstance(ref, dict):
        table = ref.get(key, ref)
        return table if isinstance(table, dict) else {}
    path = inside(plugin_root, ref)
    if path is None or not path.is_file():
        return {}
    try:
        data = _json(path, plugin_root)
    except CatalogError:
        return {}
    table = data.get(key) if isinstance(data, dict) else None
    return table if isinstance(table, dict) else {}
