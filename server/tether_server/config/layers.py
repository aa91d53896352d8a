"""The layers of the configuration, as `config/read` reports them (Codex 0.169.0's order and names).

Highest precedence first: the `-c` session flags, then the `.codex/config.toml` of each folder
from the working directory up to its project root when the project is trusted (innermost
first), then the user's config.toml, then the system config.toml — `config.toml` in the system
config folder, `/etc/tether` or `$TETHER_SYSTEM_CONFIG_DIR` (Codex: `/etc/codex`), listed even
when it does not exist, as Codex lists its own. Every layer's content goes through the one
secret filter (`wire.redact_table`) before it is shown. The same layers make the config a thread
runs with (`config_at`), so what `config/read` reports for a folder is what a thread there uses.
"""

from __future__ import annotations

import functools
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tether_server.config.load import LoadedConfig, content_version, with_overrides
from tether_server.config.model import Config
from tether_server.config.overrides import deep_merge, leaf_paths, parse_cli_overrides
from tether_server.config.trust import config_for_cwd, project_root, trust_level
from tether_server.config.wire import config_to_wire, redact_table

SYSTEM_DIR_ENV = "TETHER_SYSTEM_CONFIG_DIR"
DEFAULT_SYSTEM_DIR = "/etc/tether"


def system_dir() -> Path:
    """The system config folder: managed `config.toml` and `requirements.toml` live there."""
    return Path(os.environ.get(SYSTEM_DIR_ENV) or DEFAULT_SYSTEM_DIR)


@dataclass(frozen=True)
class Layer:
    """One layer: its wire name, its version, and its table as written."""

    name: dict[str, Any]
    version: str
    table: dict[str, Any]

    def meta(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version}

    def wire(self) -> dict[str, Any]:
        return {**self.meta(), "config": redact_table(self.table), "disabledReason": None}


# Each config file's version and table while its stat is unchanged: every thread/start reads the
# project and system layers, and parsing them anew each time was ~15% of a loaded daemon's
# thread/start (issue 31). The tables are shared: nothing merges into them in place.
_parsed: dict[Path, tuple[tuple[int, ...], str, dict[str, Any]]] = {}
_ABSENT = content_version("")


def file_stamp(path: Path) -> tuple[int, ...] | None:
    """The file's stat as a comparable stamp; None when it does not exist (OSError: unreadable)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


def _file_layer(name: dict[str, Any], path: Path) -> Layer:
    try:
        stamp = file_stamp(path)
    except OSError:
        stamp = None
    if stamp is None:
        return Layer(name, _ABSENT, {})
    cached = _parsed.get(path)
    if cached is not None and cached[0] == stamp:
        return Layer(name, cached[1], cached[2])
    try:
        text = path.read_text(encoding="utf-8")
        table = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        text, table = "", {}
    version = content_version(text)
    _parsed[path] = (stamp, version, table)
    return Layer(name, version, table)


@functools.lru_cache(maxsize=8)
def _flags(overrides: tuple[str, ...]) -> dict[str, Any]:
    """The `-c` flags as a table, parsed once per daemon (the same tuple every time)."""
    return parse_cli_overrides(overrides)


def _project_layers(loaded: LoadedConfig, cwd: Path) -> list[Layer]:
    if trust_level(loaded.config.projects, cwd) != "trusted":
        return []
    root = project_root(cwd) or cwd
    folders = [cwd, *[p for p in cwd.parents if root in (p, *p.parents)]]
    layers = []
    for folder in folders:
        dot = folder / ".codex"
        if (dot / "config.toml").is_file():
            layers.append(_file_layer({"type": "project", "dotCodexFolder": str(dot)}, dot / "config.toml"))
    return layers


def read_layers(loaded: LoadedConfig, cwd: str | None, *, read_user: bool = True) -> list[Layer]:
    """Every layer that applies from `cwd` (a relative or missing folder: none of a project).

    `read_user=False` leaves the user layer's table empty: `loaded` already holds that file, and
    only `config/read` reports it again (a thread's start need not read and parse it anew)."""
    flags = _flags(tuple(loaded.overrides))
    cli = Layer({"type": "sessionFlags"}, loaded.versions.get("cli", ""), flags)
    folder = Path(cwd) if cwd else None
    projects = _project_layers(loaded, folder) if folder and folder.is_absolute() and folder.is_dir() else []
    user_name = {"type": "user", "file": str(loaded.path), "profile": loaded.profile}
    user = _file_layer(user_name, loaded.path) if read_user else Layer(user_name, "", {})
    system_file = system_dir() / "config.toml"
    system = _file_layer({"type": "system", "file": str(system_file)}, system_file)
    return [cli, *projects, user, system]


def _layered(loaded: LoadedConfig, layers: list[Layer]) -> tuple[Config, dict[str, Any]]:
    """The config with the project and system layers applied, and the keys they set.

    Codex's precedence: session flags > project (innermost first) > user (and its profile) >
    system. `loaded` already merges the user file, the profile and the flags, so a project key
    applies unless a flag sets it, and a system key only where nothing above it set one.
    """
    cli, projects, system = layers[0], layers[1:-2], layers[-1]
    flagged = set(leaf_paths(cli.table))
    project_table: dict[str, Any] = {}
    for layer in reversed(projects):
        project_table = deep_merge(project_table, layer.table)
    masked = {p: v for p, v in _leaves(project_table) if p not in flagged}
    below = {
        p: v
        for p, v in _leaves(system.table)
        if p not in masked and p not in flagged and loaded.origins.get(p, "default") == "default"
    }
    applied = {**below, **masked}
    return (with_overrides(loaded.config, applied) if applied else loaded.config), applied


def config_at(loaded: LoadedConfig, cwd: Path) -> Config:
    """What a thread working in `cwd` runs with: every layer, then the project's trust defaults.

    Raises:
        ConfigError: a project or system layer holds a bad value (the message names the key).
    """
    layers = read_layers(loaded, str(cwd), read_user=False)
    config, applied = _layered(loaded, layers)
    return config_for_cwd(loaded, cwd, config, set(applied))


def read_config(loaded: LoadedConfig, cwd: str | None) -> tuple[dict[str, Any], dict[str, Any], list[Layer]]:
    """The effective config seen from `cwd`, each reported key's layer, and the layers."""
    layers = read_layers(loaded, cwd)
    cli, projects = layers[0], layers[1:-2]
    flagged = set(leaf_paths(cli.table))
    config, applied = _layered(loaded, layers)
    wire = config_to_wire(LoadedConfig(config, [], loaded.origins, loaded.path, loaded.profile))
    by_name = {"cli": cli, "user": layers[-2], "profile": layers[-2]}
    origins: dict[str, Any] = {}
    for key in leaf_paths(wire):
        owner = next((layer for layer in projects if key in set(leaf_paths(layer.table))), None)
        if owner is None and key in applied:
            owner = layers[-1]  # only the system layer is left to have set it
        if owner is None or key in flagged:
            source = loaded.origins.get(key, "default")
            if source == "default" or source not in by_name:
                continue
            owner = by_name[source]
        origins[key] = owner.meta()
    return wire, origins, layers


def _leaves(table: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for key, value in table.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict) and value:
            out.extend(_leaves(value, path))
        else:
            out.append((path, value))
    return out
