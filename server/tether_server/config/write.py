"""Editing `$TETHER_HOME/config.toml` in place: comments and layout kept, atomic, version-checked.

A write takes an exclusive `flock` on `config.toml.lock` for its read-modify-write, so two
writers (two daemons, or a daemon and `tether` tooling) cannot lose each other's edits; within
one daemon the edit runs without awaiting, so it is atomic on the event loop too. The new content
is validated with the same layers the daemon runs with before it replaces the file (temporary
file in the same directory, fsync, rename, fsync of the directory).
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tether_server.config.load import LoadedConfig, check_user_layer, content_version
from tether_server.config.overrides import parse_cli_overrides, split_key
from tether_server.errors import ConfigError, InvalidRequest

if TYPE_CHECKING:  # tomlkit (~50 ms of imports) loads with the first write, not with the daemon
    from tomlkit.container import Container
    from tomlkit.items import Table as TomlTable

MergeStrategy = Literal["replace", "upsert"]

CONFLICT_MESSAGE = "Configuration was modified since last read. Fetch latest version and retry."
READONLY_MESSAGE = "Only writes to the user config are allowed"
OVERRIDDEN_MESSAGE = "Overridden by session flags"
# Codex's words for a JSON null below the top of a written value (TOML has no null).
NULL_MESSAGE = "invalid value: invalid type: null, expected any valid TOML value"


class ConfigWriteError(InvalidRequest):
    """A refused write; `data.config_write_error_code` names the reason as Codex does."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message, data={"config_write_error_code": code})


@dataclass(frozen=True)
class Edit:
    """One key to set: a dotted TOML key path, a JSON value (`None` removes the key)."""

    key_path: str
    value: Any
    merge: MergeStrategy = "replace"


@dataclass(frozen=True)
class Overridden:
    """A written key that a `-c` flag still masks, and the value that wins."""

    key_path: str
    effective_value: Any


@dataclass(frozen=True)
class WriteResult:
    """The file written, its new version, the reloaded config, and any masked key."""

    path: Path
    version: str
    loaded: LoadedConfig
    overridden: Overridden | None


def write_config(
    loaded: LoadedConfig,
    edits: Sequence[Edit],
    *,
    expected_version: str | None = None,
    file_path: str | None = None,
) -> WriteResult:
    """Apply `edits` to the user config.toml of `loaded`, all or nothing.

    Raises:
        ConfigWriteError: another file was named (`configLayerReadonly`), the file changed since
            `expected_version` (`configVersionConflict`), or the result is not a valid config
            (`configValidationError`); the file is unchanged.
    """
    path = loaded.path
    if file_path is not None and Path(file_path).resolve() != path.resolve():
        raise ConfigWriteError(READONLY_MESSAGE, "configLayerReadonly")
    if any(_holds_null(edit.value) for edit in edits):
        raise ConfigWriteError(NULL_MESSAGE, "configValidationError")
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path):
        text = _read(path)
        if expected_version is not None and expected_version != content_version(text):
            raise ConfigWriteError(CONFLICT_MESSAGE, "configVersionConflict")
        if not edits:
            # Codex answers an empty batch with the file's current version and writes nothing.
            return WriteResult(path, content_version(text), loaded, None)
        new_text = _edited(text, edits)
        try:
            check_user_layer(loaded, new_text)
            reloaded = loaded.reload(new_text)
        except ConfigError as exc:
            raise ConfigWriteError(f"Invalid configuration: {exc.message}", "configValidationError") from None
        _replace(path, new_text)
    return WriteResult(path, content_version(new_text), reloaded, _overridden(reloaded, edits))


def _holds_null(value: Any) -> bool:
    """Whether a null sits inside `value` (a null value itself means "remove the key")."""
    inner = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return any(item is None or _holds_null(item) for item in inner)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""


def _edited(text: str, edits: Sequence[Edit]) -> str:
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        doc = tomlkit.parse(text)
    except TOMLKitError as exc:
        raise ConfigWriteError(f"Invalid configuration: {exc}", "configValidationError") from None
    for edit in edits:
        parts = split_key(edit.key_path)
        if not all(parts):
            raise InvalidRequest(f"invalid keyPath: {edit.key_path!r}")
        _apply(doc, parts, edit)
    return tomlkit.dumps(doc)


def _apply(doc: Container | TomlTable | dict[str, Any], parts: list[str], edit: Edit) -> None:
    node: Any = doc
    for name in parts[:-1]:
        child = node.get(name)
        if child is None:
            if edit.value is None:
                return
            child = _table()
            node[name] = child
        elif not isinstance(child, dict):
            raise ConfigWriteError(
                f"Invalid configuration: `{name}` in `{edit.key_path}` is not a table",
                "configValidationError",
            )
        node = child
    leaf = parts[-1]
    if edit.value is None:
        if leaf in node:
            del node[leaf]
        return
    below = node.get(leaf)
    if edit.merge == "upsert" and isinstance(edit.value, dict) and isinstance(below, dict):
        for key, value in edit.value.items():
            _apply(below, [key], Edit(key, value, "upsert"))
        return
    node[leaf] = _item(edit.value)


def _table() -> TomlTable:
    import tomlkit

    return tomlkit.table()


def _item(value: Any) -> Any:
    # A JSON object becomes a real [table] (not an inline one) so later edits keep a tidy layout.
    if isinstance(value, dict):
        table = _table()
        for key, inner in value.items():
            table[key] = _item(inner)
        return table
    return value


def _replace(path: Path, text: str) -> None:
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    fd, tmp = tempfile.mkstemp(prefix=".config.toml.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _overridden(loaded: LoadedConfig, edits: Sequence[Edit]) -> Overridden | None:
    cli = parse_cli_overrides(loaded.overrides)
    for edit in edits:
        node: Any = cli
        for name in split_key(edit.key_path):
            node = node.get(name) if isinstance(node, dict) else None
        if node is not None and node != edit.value:
            return Overridden(edit.key_path, node)
    return None
