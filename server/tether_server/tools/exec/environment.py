"""The environment of spawned commands (`shell_environment_policy`, core.md §6.1).

Unlike Codex, names that look like credentials (`config.secrets`: `*KEY*`, `*SECRET*`, `*TOKEN*`,
`*PASSWORD*`, `*AUTH*`, `*CREDENTIAL*`) are dropped by default, the same rule `config/read` redacts
with. The provider's own key variables are dropped even with `ignore_default_excludes`: a
command never needs the daemon's model credentials, and a prompt-injected one would exfiltrate them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tether_server.config.secrets import SECRET_NAME_PATTERNS, matches_any

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
DEFAULT_EXCLUDES = SECRET_NAME_PATTERNS


def build_env(
    environ: Mapping[str, str],
    *,
    inherit: str = "all",
    ignore_default_excludes: bool = False,
    exclude: Iterable[str] = (),
    include_only: Iterable[str] = (),
    set_vars: Mapping[str, str] | None = None,
    always_removed: Iterable[str] = (),
) -> dict[str, str]:
    """The command environment.

    Args:
        always_removed: exact variable names (the providers' `env_key`s) that never reach a
            command, whatever the policy inherits, includes or sets.
    """
    if inherit == "none":
        env: dict[str, str] = {}
    elif inherit == "core":
        env = {k: v for k, v in environ.items() if k in CORE_VARIABLES}
    else:
        env = dict(environ)
    if not ignore_default_excludes:
        env = {k: v for k, v in env.items() if not matches_any(k, DEFAULT_EXCLUDES)}
    excluded = tuple(exclude)
    if excluded:
        env = {k: v for k, v in env.items() if not matches_any(k, excluded)}
    env.update(set_vars or {})
    only = tuple(include_only)
    if only:
        env = {k: v for k, v in env.items() if matches_any(k, only)}
    for name in always_removed:
        env.pop(name, None)
    return env
