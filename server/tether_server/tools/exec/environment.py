"""The environment of spawned commands (`shell_environment_policy`, core.md §6.1).

Unlike Codex, names that look like credentials (`*KEY*`, `*SECRET*`, `*TOKEN*`) are dropped by
default, so a provider API key in the daemon's environment never reaches a command.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping

CORE_VARIABLES = (
    "PATH",
    "SHELL",
    "TMPDIR",
    "TEMP",
    "TMP",
    "HOME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "LOGNAME",
    "USER",
)
DEFAULT_EXCLUDES = ("*KEY*", "*SECRET*", "*TOKEN*")


def _matches(name: str, patterns: Iterable[str]) -> bool:
    upper = name.upper()
    return any(fnmatch.fnmatchcase(upper, p.upper()) for p in patterns)


def build_env(
    environ: Mapping[str, str],
    *,
    inherit: str = "all",
    ignore_default_excludes: bool = False,
    exclude: Iterable[str] = (),
    include_only: Iterable[str] = (),
    set_vars: Mapping[str, str] | None = None,
) -> dict[str, str]:
    if inherit == "none":
        env: dict[str, str] = {}
    elif inherit == "core":
        env = {k: v for k, v in environ.items() if k in CORE_VARIABLES}
    else:
        env = dict(environ)
    if not ignore_default_excludes:
        env = {k: v for k, v in env.items() if not _matches(k, DEFAULT_EXCLUDES)}
    exclude = tuple(exclude)
    if exclude:
        env = {k: v for k, v in env.items() if not _matches(k, exclude)}
    env.update(set_vars or {})
    only = tuple(include_only)
    if only:
        env = {k: v for k, v in env.items() if _matches(k, only)}
    return env
