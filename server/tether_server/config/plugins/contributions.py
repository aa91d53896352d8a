"""What installed, enabled plugins bring to new threads: skill folders, MCP servers, hook configs.

One call, `installed_plugin_contributions(home)`, for every consumer (the skills loader, the MCP
manager, the hook runner); it reads only the installed copies under `$TETHER_HOME/plugins/cache`,
never the marketplace the plugin came from. Blocking (reads files).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tether_server.config.plugins import catalog, registry


@dataclass(frozen=True)
class PluginSkillRoot:
    """A plugin's skills folder; its skills are named `<plugin name>:<skill name>`, as in Codex."""

    plugin_id: str
    plugin_name: str
    root: Path


@dataclass(frozen=True)
class PluginHooks:
    """A plugin's hook config: the `hooks` table (`{"PreToolUse": [groups]}`) and where it is."""

    plugin_id: str
    path: Path
    file_name: str  # relative to the plugin, as hook keys name it: `<plugin id>:<file>:<event>:…`
    table: dict[str, Any]


@dataclass
class PluginContributions:
    skill_roots: list[PluginSkillRoot] = field(default_factory=list)
    mcp_servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    mcp_server_plugins: dict[str, str] = field(default_factory=dict)  # server name -> plugin id
    hooks: list[PluginHooks] = field(default_factory=list)


def installed_plugin_contributions(home: Path | None) -> PluginContributions:
    """The contributions of the installed and enabled plugins of `home`, in plugin id order."""
    found = PluginContributions()
    if home is None:
        return found
    state = registry.load(home)
    for plugin_id in sorted(state.plugins):
        record = state.plugins[plugin_id]
        if not record.enabled:
            continue
        root = Path(record.path)
        if registry.cache_dir(home).resolve() not in root.resolve().parents:
            continue  # a hand-edited state.json may not point the loaders elsewhere
        try:
            manifest = catalog.read_manifest(root)
        except catalog.CatalogError:
            continue
        if manifest.skills is not None:
            found.skill_roots.append(PluginSkillRoot(plugin_id, manifest.name, manifest.skills))
        for name, server in manifest.mcp_servers.items():
            if isinstance(server, dict) and name not in found.mcp_servers:
                entry = dict(server)
                if "command" in entry:
                    entry.setdefault("cwd", str(root))
                found.mcp_servers[name] = entry
                found.mcp_server_plugins[name] = plugin_id
        if manifest.hooks and manifest.hooks_file is not None:
            found.hooks.append(
                PluginHooks(plugin_id, root / manifest.hooks_file, manifest.hooks_file, manifest.hooks)
            )
    return found
