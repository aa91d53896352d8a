"""Marketplaces and plugins as `plugin/*` answers them (blocking: reads marketplace files)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from tether_protocol.v2 import plugins as pl
from tether_server.config.plugins import catalog, registry
from tether_server.config.plugins.catalog import CatalogError, Marketplace, PluginEntry
from tether_server.config.skills import Skill, parse_skill
from tether_server.errors import InvalidRequest

_INTERFACE_TEXT = (
    "displayName", "shortDescription", "longDescription", "developerName", "category", "websiteUrl",
    "privacyPolicyUrl", "termsOfServiceUrl", "brandColor", "composerIconUrl", "logoUrl", "logoUrlDark",
)  # fmt: skip
_INTERFACE_PATHS = ("composerIcon", "logo", "logoDark")


def remote_unavailable(what: str, api_key: bool) -> InvalidRequest:
    """Codex's answer to anything needing the hosted plugin catalog, which needs ChatGPT sign-in."""
    suffix = "; api key auth is not supported" if api_key else ""
    return InvalidRequest(f"{what}: chatgpt authentication required for remote plugin catalog{suffix}")


def one_marketplace(method: str, marketplace_path: str | None, remote: str | None) -> Path | None:
    """The local marketplace file named, or None for a remote one; exactly one must be given."""
    if (marketplace_path is None) == (remote is None):
        raise InvalidRequest(f"{method} requires exactly one of marketplacePath or remoteMarketplaceName")
    if marketplace_path is None:
        return None
    if not Path(marketplace_path).is_absolute():
        raise InvalidRequest("Invalid request: AbsolutePathBuf deserialized without a base path")
    return Path(marketplace_path)


def known_marketplaces(
    home: Path, cwds: list[str] | None
) -> tuple[list[Marketplace], list[pl.MarketplaceLoadErrorInfo]]:
    """The added marketplaces, then those of the given working directories' repositories."""
    roots = [Path(r.root) for r in registry.load(home).marketplaces.values()]
    roots += [
        Path(cwd)
        for cwd in cwds or []
        if Path(cwd).is_absolute() and catalog.marketplace_file(Path(cwd)).is_file()
    ]
    found: list[Marketplace] = []
    errors: list[pl.MarketplaceLoadErrorInfo] = []
    seen: set[Path] = set()
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        try:
            found.append(catalog.read_marketplace(root))
        except CatalogError as exc:
            errors.append(
                pl.MarketplaceLoadErrorInfo(
                    marketplace_path=str(catalog.marketplace_file(root)), message=str(exc)
                )
            )
    return found, errors


def entry(market: Marketplace, plugins: list[pl.PluginSummary]) -> pl.PluginMarketplaceEntry:
    return pl.PluginMarketplaceEntry(
        name=market.name,
        path=str(market.file),
        interface=pl.MarketplaceInterface(display_name=market.display_name),
        plugins=plugins,
    )


def summary(home: Path, market: Marketplace, plugin: PluginEntry) -> pl.PluginSummary:
    plugin_id = f"{plugin.name}@{market.name}"
    record = registry.load(home).plugins.get(plugin_id)
    manifest = plugin.manifest
    return pl.PluginSummary(
        id=plugin_id,
        local_version=manifest.version if manifest else None,
        name=plugin.name,
        source={"type": "local", "path": str(plugin.path)},
        installed=record is not None,
        enabled=record is not None and record.enabled,
        install_policy=plugin.install_policy,
        auth_policy=plugin.auth_policy,
        interface=_interface(plugin.path, manifest.interface) if manifest else None,
        keywords=manifest.keywords if manifest else [],
    )


def _interface(root: Path, raw: dict[str, Any]) -> pl.PluginInterface:
    fields: dict[str, Any] = {k: raw[k] for k in _INTERFACE_TEXT if isinstance(raw.get(k), str)}
    for key in _INTERFACE_PATHS:
        path = catalog.inside(root, raw.get(key))
        fields[key] = str(path) if path is not None else None
    fields["capabilities"] = [c for c in raw.get("capabilities") or [] if isinstance(c, str)]
    prompts = raw.get("defaultPrompt")
    if isinstance(prompts, str):
        prompts = [prompts]
    if isinstance(prompts, list):
        fields["defaultPrompt"] = [p[:512] for p in prompts if isinstance(p, str)][:3]
    shots = [catalog.inside(root, s) for s in raw.get("screenshots") or []]
    fields["screenshots"] = [str(s) for s in shots if s is not None]
    fields["screenshotUrls"] = [u for u in raw.get("screenshotUrls") or [] if isinstance(u, str)]
    return pl.PluginInterface.model_validate(fields)


def detail(home: Path, market: Marketplace, plugin: PluginEntry) -> pl.PluginDetail:
    manifest = plugin.manifest
    if manifest is None:
        raise InvalidRequest(f"plugin `{plugin.name}` has no valid manifest in marketplace `{market.name}`")
    plugin_id = f"{plugin.name}@{market.name}"
    skills = _plugin_skills(manifest.skills, manifest.name) if manifest.skills else []
    return pl.PluginDetail(
        marketplace_name=market.name,
        marketplace_path=str(market.file),
        summary=summary(home, market, plugin),
        description=manifest.description,
        skills=[
            pl.PluginSkillSummary(
                name=s.name,
                description=s.description,
                short_description=s.short_description,
                path=str(s.path),
            )
            for s in skills
        ],
        hooks=hook_summaries(plugin_id, manifest.hooks_file, manifest.hooks),
        mcp_servers=sorted(manifest.mcp_servers),
    )


def _plugin_skills(root: Path, plugin_name: str) -> list[Skill]:
    """The readable skills of a plugin's skills folder, named `<plugin>:<skill>` as Codex names them."""
    found = []
    for folder in sorted(root.iterdir()):
        if folder.name.startswith(".") or not (folder / "SKILL.md").is_file():
            continue
        try:
            skill = parse_skill(folder / "SKILL.md", "user", root)
        except ValueError:
            continue
        found.append(replace(skill, name=f"{plugin_name}:{skill.name}"))
    return found


def _snake(event: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", event).lower()


def hook_summaries(
    plugin_id: str, file_name: str | None, table: dict[str, Any]
) -> list[pl.PluginHookSummary]:
    found = []
    for event, groups in table.items():
        if not isinstance(event, str) or not event or not isinstance(groups, list):
            continue
        for g, group in enumerate(groups):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for h, _handler in enumerate(handlers if isinstance(handlers, list) else []):
                key = f"{plugin_id}:{file_name or 'plugin.json'}:{_snake(event)}:{g}:{h}"
                found.append(pl.PluginHookSummary(key=key, event_name=event[0].lower() + event[1:]))
    return found
