"""Reading `$TETHER_HOME/config.toml`, selecting a profile and applying `-c` overrides."""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tether_server import log
from tether_server.config.model import Config
from tether_server.config.overrides import (
    Table,
    deep_merge,
    dotted_to_table,
    leaf_paths,
    parse_cli_overrides,
)
from tether_server.config.validate import UNTRUSTED_MESSAGE, build_config, strip_unknown
from tether_server.errors import ConfigError

Origin = Literal["default", "user", "profile", "cli"]

_log = log.get(__name__)


@dataclass(frozen=True)
class LoadedConfig:
    """A loaded configuration and where each of its values came from.

    Attributes:
        config: the effective configuration.
        warnings: one sentence per ignored problem (unknown keys).
        origins: dotted leaf key → "default" | "user" | "profile" | "cli".
        path: the config.toml that was read (it may not exist).
        profile: the selected profile, if any.
        versions: layer name → content fingerprint ("sha256:…"), for config/read.
        overrides: the `-c` strings it was loaded with (a reload applies them again).
        strict: whether unknown keys were errors.
        cli_profile: the profile chosen on the command line, if any.
    """

    config: Config
    warnings: list[str]
    origins: dict[str, str]
    path: Path
    profile: str | None = None
    versions: dict[str, str] = field(default_factory=dict)
    overrides: tuple[str, ...] = ()
    strict: bool = False
    cli_profile: str | None = None

    def reload(self, text: str | None = None) -> LoadedConfig:
        """The same layers loaded again, from `text` as config.toml's content when given.

        Raises:
            ConfigError: as `load_config`.
        """
        home = self.path.parent
        return load_config(home, self.overrides, strict=self.strict, profile=self.cli_profile, text=text)


def load_config(
    home: Path,
    overrides: Sequence[str] = (),
    *,
    strict: bool = False,
    profile: str | None = None,
    text: str | None = None,
) -> LoadedConfig:
    """Load `home/config.toml` (missing means defaults), a profile, and `-c` overrides.

    Precedence: defaults < config.toml < selected profile < overrides.

    Args:
        home: the Tether home directory.
        overrides: `key=value` strings as given to `-c`.
        strict: raise on unknown keys instead of warning.
        profile: a profile name that wins over the `profile` key in the file or overrides.
        text: config.toml's content, to validate a new content before it is written.

    Raises:
        ConfigError: unreadable or invalid TOML, a bad value, an unknown provider or profile.
    """
    path = home / "config.toml"
    if text is None:
        text = _read(path)
    user = _parse(text, path)
    cli = parse_cli_overrides(overrides)
    _reject_untrusted(user, cli)
    chosen = profile or _str_or_none(cli.get("profile")) or _str_or_none(user.get("profile"))
    layers = _layers(user, cli, chosen)
    warnings: list[str] = []
    config = build_config(_merge_layers(layers, chosen), warnings, strict=strict)
    origins = _origins(config, layers)
    if profile is not None:
        origins["profile"] = "cli"
    return LoadedConfig(
        config,
        warnings,
        origins,
        path,
        chosen,
        _versions(text, overrides),
        tuple(overrides),
        strict,
        profile,
    )


def check_user_layer(loaded: LoadedConfig, text: str) -> None:
    """Check config.toml's own values, even those a `-c` flag masks (as Codex checks a write).

    The flags sit below the file here, so references to what only they define still resolve.

    Raises:
        ConfigError: a value of config.toml has the wrong type or shape.
    """
    user = _parse(text, loaded.path)
    cli = parse_cli_overrides(loaded.overrides)
    build_config(deep_merge(cli, user), [], strict=False)


def with_overrides(config: Config, overrides: Mapping[str, Any]) -> Config:
    """Apply a thread/start `config` param (dotted keys → JSON values) to `config`.

    A JSON `null` resets the key to its default. Naming another `profile` overlays that
    profile's keys first (the overrides still win). Unknown keys are logged and ignored.
    Unlike config.toml, `approval_policy = "untrusted"` is allowed here: the wire still
    accepts it.

    Raises:
        ConfigError: a bad value (the message names the dotted key).
    """
    if not overrides:
        return config
    base = config.model_dump(exclude_none=True)
    table = dotted_to_table(overrides)
    name = table.get("profile")
    if isinstance(name, str) and name != config.profile:
        base = deep_merge(base, _profile_table(base, name))
    merged = _prune_none(deep_merge(base, table))
    warnings: list[str] = []
    updated = build_config(merged, warnings, strict=False)
    for message in warnings:
        _log.warning("config_override_warning", message=message)
    return updated


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None


def _parse(text: str, path: Path) -> Table:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None


def _reject_untrusted(user: Table, cli: Table) -> None:
    tables: list[tuple[str, Any]] = [("", user), ("", cli)]
    profiles = deep_merge(user, cli).get("profiles")
    if isinstance(profiles, dict):
        tables += [(f"profiles.{name}.", table) for name, table in profiles.items()]
    for prefix, table in tables:
        if isinstance(table, dict) and table.get("approval_policy") == "untrusted":
            raise ConfigError(UNTRUSTED_MESSAGE, key=f"{prefix}approval_policy")


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _profile_table(user: Table, name: str | None) -> Table:
    if name is None:
        return {}
    profiles = user.get("profiles")
    table = profiles.get(name) if isinstance(profiles, dict) else None
    if not isinstance(table, dict):
        raise ConfigError(f"config profile `{name}` not found in [profiles]", key="profile")
    return {key: value for key, value in table.items() if key not in ("profile", "profiles")}


def _layers(user: Table, cli: Table, chosen: str | None) -> list[tuple[Origin, Table]]:
    # Profiles may be defined or patched from -c too; the selected one sits below all of -c.
    # Its unknown keys are reported under `profiles.<name>`, so they are dropped here unreported.
    selected = strip_unknown(_profile_table(deep_merge(user, cli), chosen), Config, "", [])
    return [("user", user), ("profile", selected), ("cli", cli)]


def _merge_layers(layers: Sequence[tuple[Origin, Table]], chosen: str | None) -> Table:
    merged: Table = {}
    for _, layer in layers:
        merged = deep_merge(merged, layer)
    if chosen is not None:
        merged["profile"] = chosen
    return merged


def _origins(config: Config, layers: Sequence[tuple[Origin, Table]]) -> dict[str, str]:
    # Only keys that survived validation get an origin: ignored unknown keys have none.
    origins: dict[str, str] = dict.fromkeys(leaf_paths(config.model_dump(exclude_none=True)), "default")
    for origin, layer in layers:
        for path in leaf_paths(layer):
            if path in origins:
                origins[path] = origin
    return origins


def content_version(data: str) -> str:
    """The version of a config file's content, as config/read reports it and writes check it."""
    return "sha256:" + hashlib.sha256(data.encode()).hexdigest()


def _versions(text: str, overrides: Sequence[str]) -> dict[str, str]:
    return {"user": content_version(text), "cli": content_version("\n".join(overrides))}


def _prune_none(table: Table) -> Table:
    return {
        key: _prune_none(value) if isinstance(value, dict) else value
        for key, value in table.items()
        if value is not None
    }
