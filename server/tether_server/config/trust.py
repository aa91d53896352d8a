"""Project trust (`[projects."<path>"] trust_level`) and the defaults it gives a new thread, as Codex.

Observed against codex 0.169.0 (`thread/start` answers): a thread whose working directory is
in a trusted project defaults to `workspace-write` with `on-request` approvals; in an untrusted
one to `workspace-write` with `untrusted` approvals (only known-safe commands run without
asking); anywhere else to `read-only`. The project is the working directory's own entry, else
that of its repository root (the nearest parent holding `.git`). A `sandbox_mode` or
`approval_policy` the user set (config.toml, a profile, `-c`) always wins over these defaults.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any, Literal

from tether_server.config.load import LoadedConfig, with_overrides
from tether_server.config.model import Config

TrustLevel = Literal["trusted", "untrusted"]


def project_root(cwd: Path) -> Path | None:
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return None


def trust_level(projects: Any, cwd: Path) -> TrustLevel | None:
    """The trust level recorded for `cwd`'s project, if any."""
    if not isinstance(projects, dict):
        return None
    root = project_root(cwd)
    for key in (cwd, root):
        entry = projects.get(str(key)) if key is not None else None
        level = entry.get("trust_level") if isinstance(entry, dict) else None
        if level in ("trusted", "untrusted"):
            return level  # type: ignore[no-any-return]
    return None


def config_for_cwd(
    loaded: LoadedConfig, cwd: Path, layered: Config | None = None, layered_keys: Collection[str] = ()
) -> Config:
    """The daemon's config (or `layered`: with the system and project layers applied, which set
    `layered_keys`) with the trust defaults for `cwd` applied where no layer set anything."""
    config = loaded.config if layered is None else layered
    level = trust_level(loaded.config.projects, cwd)
    if level is None:
        return config

    def unset(key: str) -> bool:
        return loaded.origins.get(key, "default") == "default" and key not in layered_keys

    defaults: dict[str, Any] = {}
    if unset("sandbox_mode"):
        defaults["sandbox_mode"] = "workspace-write"
    if level == "untrusted" and unset("approval_policy"):
        defaults["approval_policy"] = "untrusted"
    return with_overrides(config, defaults)
