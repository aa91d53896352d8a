"""Where the hooks of a working directory come from, in Codex's order of layers.

The user's config.toml first, then the project's `.codex/config.toml` files (from the repository
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
from tether_server.config.load import LoadedConfig
from tether_server.config.trust import project_root, trust_level

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


def hooks_for(loaded: LoadedConfig, cwd: Path, extra: Sequence[ExtraLayers] = ()) -> HookScan:
    """Every hook that applies in `cwd`, with its trust as the user's config records it."""
    table = loaded.config.hooks
    layers = [HookLayer(table, loaded.path, "user")]
    project, errors = project_layers(loaded, cwd)
    layers.extend(project)
    for more in extra:
        layers.extend(more(cwd))
    scan = discover(layers, table.get("state") if isinstance(table, dict) else None)
    scan.errors[:0] = errors
    return scan
