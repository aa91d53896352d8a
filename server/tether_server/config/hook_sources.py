"""Where the hooks of a working directory come from, in Codex's order of layers.

Managed requirements first (`[hooks]` of requirements.toml, run without the user's trust), then
the user's config.toml, then the project's `.codex/config.toml` files (from the repository
root down to the working directory) when the project is trusted, as Codex loads project config
only in trusted projects; then any extra layers a caller adds (installed plugins' hook configs).
Trust and enablement are always read from the user's config.toml (`hooks.state`): a project file
cannot trust its own hooks.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path

from tether_server.config.hooks import HookLayer, HookScan, discover
from tether_server.config.layers import system_dir
from tether_server.config.load import LoadedConfig
from tether_server.config.requirements import FILE as REQUIREMENTS_FILE
from tether_server.config.requirements import load_requirements
from tether_server.config.trust import project_root, trust_level
from tether_server.errors import ConfigError

ExtraLayers = Callable[[Path], Sequence[HookLayer]]
"""cwd → more hook layers (the plugins engineer's installed-plugin hooks plug in here)."""

_PROJECT_FILE = Path(".codex") / "config.toml"


def project_layers(loaded: LoadedConfig, cwd: Path) -> tuple[list[HookLayer], list[tuple[Path, str]]]:
    """The hook tables of a trusted project's `.codex/config.toml` files, outermost first."""
    if trust_level(loaded.config.projects, cwd) != "trusted":
        return [], []
    root = project_root(cwd) or cwd
    folders = (
        [cwd, *[p for p in cwd.parents if p.is_relative_to(root)]] if cwd.is_relative_to(root) else [cwd]
    )
    layers: list[HookLayer] = []
    errors: list[tuple[Path, str]] = []
    for folder in reversed(folders):
        path = folder / _PROJECT_FILE
        try:
            text = path.read_text(encoding="utf-8")
        except (FileNotFoundError, NotADirectoryError):
            continue
        except (OSError, UnicodeDecodeError) as exc:
            errors.append((path, f"could not read: {exc}"))
            continue
        try:
            table = tomllib.loads(text).get("hooks")
        except tomllib.TOMLDecodeError as exc:
            errors.append((path, f"not valid TOML: {exc}"))
            continue
        if table is not None:
            layers.append(HookLayer(table, path, "project"))
    return layers, errors


def managed_layers() -> tuple[list[HookLayer], list[tuple[Path, str]]]:
    """The managed requirements' hooks (source `system`), as Codex 0.169.0 lists them: first,
    keyed and sourced by the requirements' `managed_dir` (the requirements file when unset)."""
    try:
        req = load_requirements()
    except ConfigError as exc:
        return [], [(system_dir() / REQUIREMENTS_FILE, str(exc))]
    if req is None or req.hooks is None:
        return [], []
    return [HookLayer(req.hooks, req.hooks_path, "system", managed=True)], []


def hooks_for(loaded: LoadedConfig, cwd: Path, extra: Sequence[ExtraLayers] = ()) -> HookScan:
    """Every hook that applies in `cwd`, with its trust as the user's config records it."""
    table = loaded.config.hooks
    layers, errors = managed_layers()
    layers.append(HookLayer(table, loaded.path, "user"))
    project, project_errors = project_layers(loaded, cwd)
    layers.extend(project)
    errors.extend(project_errors)
    for more in extra:
        layers.extend(more(cwd))
    scan = discover(layers, table.get("state") if isinstance(table, dict) else None)
    scan.errors[:0] = errors
    return scan
