"""Adding, upgrading and removing marketplaces; installing and removing plugins. Blocking.

Every client-named input went through `sources` before it reaches here; clones land in a staging
folder inside `$TETHER_HOME/plugins` and are moved into place only once they hold a valid
marketplace, so a failed add or upgrade leaves the previous state as it was.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tether_server.config.plugins import catalog, git, registry, sources
from tether_server.config.plugins.catalog import CatalogError, Marketplace
from tether_server.errors import InvalidRequest, TetherError


@dataclass(frozen=True)
class Added:
    name: str
    root: Path
    already: bool


def _staging(home: Path) -> Path:
    folder = registry.clones_dir(home) / ".staging"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(dir=folder, prefix="marketplace-"))


def _read(root: Path) -> Marketplace:
    try:
        return catalog.read_marketplace(root)
    except CatalogError as exc:
        raise InvalidRequest(str(exc)) from None


def add_marketplace(home: Path, raw: str, ref: str | None, sparse_paths: list[str] | None) -> Added:
    source = sources.parse_source(raw)
    ref = sources.check_ref(ref)
    sparse = sources.check_sparse_paths(sparse_paths)
    if source.kind == "local":
        root = sources.local_root(source.value)
        market = _read(root)
        return _record(home, registry.MarketplaceRecord(market.name, "local", str(root), str(root)))
    with registry.editing(home) as state:
        for record in state.marketplaces.values():
            if record.source_type == "git" and record.source == source.value and record.ref_name == ref:
                return Added(record.name, Path(record.root), True)
    staging = _staging(home)
    try:
        checkout = staging / "checkout"
        git.clone(source.value, checkout, ref, sparse)
        market = _read(checkout)
        final = registry.clones_dir(home) / market.name
        # No revision yet: as in Codex 0.169.0, the first upgrade after an add reports the root
        # as upgraded; later ones only when the revision changed.
        record = registry.MarketplaceRecord(market.name, "git", source.value, str(final), ref, sparse)
        with registry.editing(home) as state:
            _check_free(state, record)
            shutil.rmtree(final, ignore_errors=True)
            checkout.rename(final)
            state.marketplaces[market.name] = record
        return Added(market.name, final, False)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _check_free(state: registry.PluginState, record: registry.MarketplaceRecord) -> None:
    known = state.marketplaces.get(record.name)
    if known is not None and (known.source_type, known.source) != (record.source_type, record.source):
        raise InvalidRequest(
            f"marketplace `{record.name}` is already added from another source: {known.source}"
        )


def _record(home: Path, record: registry.MarketplaceRecord) -> Added:
    with registry.editing(home) as state:
        known = state.marketplaces.get(record.name)
        if known is not None and known.source == record.source:
            return Added(known.name, Path(known.root), True)
        _check_free(state, record)
        state.marketplaces[record.name] = record
    return Added(record.name, Path(record.root), False)


def remove_marketplace(home: Path, name: str) -> Path | None:
    """Forget `name`; the clone's folder when one was deleted (a local folder is left alone)."""
    with registry.editing(home) as state:
        record = state.marketplaces.pop(name, None)
        if record is None:
            raise InvalidRequest(f"marketplace `{name}` is not configured or installed")
        if record.source_type != "git":
            return None
        root = registry.clones_dir(home) / record.name
        shutil.rmtree(root, ignore_errors=True)
        return root


@dataclass(frozen=True)
class Upgraded:
    selected: list[str]
    roots: list[Path]
    errors: list[tuple[str, str]]


def upgrade(home: Path, name: str | None) -> Upgraded:
    state = registry.load(home)
    gits = {n: r for n, r in state.marketplaces.items() if r.source_type == "git"}
    if name is not None and name not in gits:
        raise InvalidRequest(f"marketplace `{name}` is not configured as a Git marketplace")
    selected = [name] if name is not None else sorted(gits)
    roots: list[Path] = []
    errors: list[tuple[str, str]] = []
    for market in selected:
        try:
            root = _upgrade_one(home, gits[market])
        except TetherError as exc:
            errors.append((market, exc.message))
            continue
        if root is not None:
            roots.append(root)
    return Upgraded(selected, roots, errors)


def _upgrade_one(home: Path, record: registry.MarketplaceRecord) -> Path | None:
    staging = _staging(home)
    try:
        checkout = staging / "checkout"
        revision = git.clone(record.source, checkout, record.ref_name, record.sparse_paths)
        if revision == record.revision:
            return None
        market = _read(checkout)
        if market.name != record.name:
            raise InvalidRequest(f"marketplace `{record.name}` now names itself `{market.name}`")
        final = registry.clones_dir(home) / record.name
        with registry.editing(home) as state:
            old = staging / "old"
            if final.exists():
                final.rename(old)
            checkout.rename(final)
            record.revision = revision
            state.marketplaces[record.name] = record
        return final
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def marketplace_at(path: Path) -> Marketplace:
    """The marketplace whose file is `path` (`<root>/.agents/plugins/marketplace.json`)."""
    root = path.parent.parent.parent
    if path != catalog.marketplace_file(root) or not path.is_file():
        raise InvalidRequest(f"marketplace file `{path}` does not exist")
    return _read(root)


def install(home: Path, market: Marketplace, plugin_name: str) -> catalog.PluginEntry:
    """Copy the plugin into the cache and record it, in an order a crash cannot break: the state
    never names a copy that is missing or half written (old copies go only once it is saved)."""
    entry = find_plugin(market, plugin_name)
    manifest = entry.manifest
    if manifest is None:
        raise InvalidRequest(f"plugin `{plugin_name}` has no valid manifest in marketplace `{market.name}`")
    version = manifest.version if catalog.valid_name(manifest.version) else "local"
    plugin_cache = registry.cache_dir(home) / market.name / entry.name
    plugin_cache.mkdir(mode=0o700, parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=plugin_cache, prefix=".install-"))
    final = plugin_cache / str(version)
    try:
        copy = staging / "copy"
        # Links are copied as links: the readers refuse them, so none points outside the plugin.
        shutil.copytree(entry.path, copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        plugin_id = f"{entry.name}@{market.name}"
        with registry.editing(home) as state:
            if final.exists():
                _exchange(copy, final)  # the old copy ends up in staging
            else:
                copy.rename(final)
            state.plugins[plugin_id] = registry.PluginRecord(
                plugin_id, entry.name, market.name, str(final), manifest.version
            )
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    for old in plugin_cache.iterdir():
        if old != final and not old.name.startswith("."):
            shutil.rmtree(old, ignore_errors=True)
    return entry


def _exchange(a: Path, b: Path) -> None:
    """Swap two folders in one step (`renameat2(RENAME_EXCHANGE)`), so `b` is never missing."""
    libc = ctypes.CDLL(None, use_errno=True)
    at_fdcwd, rename_exchange = -100, 2
    if libc.renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno), str(b))


def find_plugin(market: Marketplace, name: str) -> catalog.PluginEntry:
    for entry in market.plugins:
        if entry.name == name:
            return entry
    raise InvalidRequest(f"plugin `{name}` was not found in marketplace `{market.name}`")


def uninstall(home: Path, plugin_id: str) -> None:
    """Forget the plugin, then delete its copy (a crash in between leaves an unused folder)."""
    name, _, market = plugin_id.partition("@")
    with registry.editing(home) as state:
        state.plugins.pop(plugin_id, None)
    shutil.rmtree(registry.cache_dir(home) / market / name, ignore_errors=True)
