"""`$TETHER_HOME/plugins`: the marketplaces added and the plugins installed, kept in `state.json`.

Layout: `marketplaces/<name>/` holds git clones (a local marketplace stays where the user keeps
it), `cache/<marketplace>/<plugin>/<version>/` the copy of each installed plugin (as Codex lays
out `$CODEX_HOME/plugins/cache`), `state.json` what was added and installed. Every change runs
under an exclusive `flock` and replaces `state.json` atomically, so two daemons on one home
cannot lose each other's edits. Blocking.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class MarketplaceRecord:
    """A marketplace added: where it came from and the folder it is read from."""

    name: str
    source_type: str  # "local" or "git"
    source: str
    root: str
    ref_name: str | None = None
    sparse_paths: list[str] = field(default_factory=list)
    revision: str | None = None


@dataclass
class PluginRecord:
    """An installed plugin: its id (`name@marketplace`), the installed copy and whether it is on."""

    id: str
    name: str
    marketplace: str
    path: str
    version: str | None = None
    enabled: bool = True


@dataclass
class PluginState:
    marketplaces: dict[str, MarketplaceRecord] = field(default_factory=dict)
    plugins: dict[str, PluginRecord] = field(default_factory=dict)


def plugins_dir(home: Path) -> Path:
    return home / "plugins"


def clones_dir(home: Path) -> Path:
    return plugins_dir(home) / "marketplaces"


def cache_dir(home: Path) -> Path:
    return plugins_dir(home) / "cache"


def _state_file(home: Path) -> Path:
    return plugins_dir(home) / "state.json"


def load(home: Path) -> PluginState:
    """The recorded state; an unreadable or damaged file reads as nothing added."""
    try:
        raw = json.loads(_state_file(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return PluginState()
    state = PluginState()
    if not isinstance(raw, dict):
        return state
    for item in _values(raw.get("marketplaces")):
        try:
            record = MarketplaceRecord(**item)
        except TypeError:
            continue
        state.marketplaces[record.name] = record
    for item in _values(raw.get("plugins")):
        try:
            plugin = PluginRecord(**item)
        except TypeError:
            continue
        state.plugins[plugin.id] = plugin
    return state


def _values(table: Any) -> list[dict[str, Any]]:
    return [v for v in table.values() if isinstance(v, dict)] if isinstance(table, dict) else []


@contextmanager
def editing(home: Path) -> Iterator[PluginState]:
    """The state, locked; what the block leaves in it is saved when it ends without raising."""
    folder = plugins_dir(home)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    with os.fdopen(os.open(folder / ".lock", os.O_RDWR | os.O_CREAT, 0o600), "r+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            state = load(home)
            before = _dump(state)
            yield state
            if _dump(state) != before:
                _save(home, state)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _dump(state: PluginState) -> dict[str, Any]:
    return {
        "marketplaces": {k: asdict(v) for k, v in state.marketplaces.items()},
        "plugins": {k: asdict(v) for k, v in state.plugins.items()},
    }


def _save(home: Path, state: PluginState) -> None:
    data = _dump(state)
    folder = plugins_dir(home)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".state.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=2)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, _state_file(home))
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
