"""Applying what installed plugins contribute to the running daemon: MCP servers and skill roots.

Called at start and after every install or uninstall, so the next thread sees the change. The
user's own `mcp_servers` win over a plugin's server of the same name.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from tether_server.config import LoadedConfig
from tether_server.config.hooks import HookLayer
from tether_server.config.plugins import PluginContributions, installed_plugin_contributions, registry
from tether_server.config.skills import SkillRoot
from tether_server.processor.state import ServerState
from tether_server.tools.mcp.config import ServerConfig, parse_servers

PLUGIN_SKILLS = "plugins"
_locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()


def changes() -> asyncio.Lock:
    """One plugin change at a time (an install and an uninstall racing would otherwise reach the
    MCP manager in either order); one lock per event loop, as a lock belongs to its loop."""
    loop = asyncio.get_running_loop()
    lock = _locks.get(loop)
    if lock is None:
        lock = _locks[loop] = asyncio.Lock()
    return lock


def with_plugin_servers(configured: Any, found: PluginContributions) -> Any:
    """`mcp_servers` with the plugins' servers added under the names the user did not take."""
    if configured is not None and not isinstance(configured, dict):
        return configured
    merged = dict(found.mcp_servers)
    merged.update(configured or {})
    return merged


def servers_with_plugins(configured: Any, found: PluginContributions) -> tuple[list[ServerConfig], list[str]]:
    """The MCP servers to run: the user's, and the plugins' (marked with their plugin) under the
    names the user did not take; a warning for each entry left out."""
    servers, warnings = parse_servers(with_plugin_servers(configured, found))
    taken = set(configured) if isinstance(configured, dict) else set()
    marked = [
        replace(s, plugin_id=found.mcp_server_plugins.get(s.name)) if s.name not in taken else s
        for s in servers
    ]
    return marked, warnings


def skill_roots(found: PluginContributions) -> list[SkillRoot]:
    """The plugins' skill folders; a plugin's skill files must stay inside its installed copy."""
    return [SkillRoot(r.root, "user", confine=r.root, plugin_id=r.plugin_id) for r in found.skill_roots]


async def at_start(home: Path, loaded: LoadedConfig) -> tuple[list[ServerConfig], list[SkillRoot]]:
    """The MCP servers to start (the user's and the plugins') and the plugins' skill roots; a
    server entry that cannot be used becomes a config warning."""
    found = await asyncio.to_thread(installed_plugin_contributions, home)
    servers, warnings = servers_with_plugins(loaded.config.mcp_servers, found)
    loaded.warnings.extend(warnings)
    return servers, skill_roots(found)


def hook_source(home: Path) -> Callable[[Path], list[HookLayer]]:
    """The installed plugins' hook configs as hook layers (source `plugin`), for any cwd.

    Asked at every hook event: the plugins are read again only when `state.json` changed.
    """
    cache: dict[str, Any] = {"key": None, "layers": []}

    def layers(cwd: Path) -> list[HookLayer]:
        try:
            info = (registry.plugins_dir(home) / "state.json").stat()
            key: Any = (info.st_mtime_ns, info.st_size, info.st_ino)
        except OSError:
            key = None
        if key != cache["key"]:
            found = installed_plugin_contributions(home)
            cache["layers"] = [
                HookLayer(h.table, h.path, "plugin", h.plugin_id, f"{h.plugin_id}:{h.file_name}")
                for h in found.hooks
            ]
            cache["key"] = key
        return list(cache["layers"])

    return layers


def wire_up(state: ServerState, plugin_skills: list[SkillRoot]) -> None:
    """At start: the plugins' skill roots (read by `at_start`) and their hooks join the daemon."""
    state.threads.deps.skill_roots.set(PLUGIN_SKILLS, plugin_skills)
    state.hook_sources.append(hook_source(state.home))
    state.hook_source_files.append(registry.plugins_dir(state.home) / "state.json")


async def apply_contributions(state: ServerState) -> None:
    """Read the installed plugins and give their skills and MCP servers to the daemon."""
    found = await asyncio.to_thread(installed_plugin_contributions, state.home)
    state.threads.deps.skill_roots.set(PLUGIN_SKILLS, skill_roots(found))
    if state.mcp is not None:
        servers, _warnings = servers_with_plugins(state.config.config.mcp_servers, found)
        await state.mcp.reload(servers)
