"""The shell the model names in `exec_command`'s `shell` argument: a system shell or nothing.

The shell runs the script, so it is the command as much as the script is: a `shell` the model
wrote itself (`./evil.sh`, or a script named `bash` in the workspace) would run as whatever the
script was judged to be, outside the sandbox when a rule allows the script. So a requested
shell must resolve to a known shell binary that lies outside every place the model can write.
It is spawned by its resolved path, so no symlink the model controls can be swapped in between
the check and the spawn.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tether_server.errors import TetherError
from tether_server.sandbox.policy import SandboxPolicy
from tether_server.tools.exec.shell import default_shell

# Versioned names (`ksh93`, `bash5`) are the same shells; `rbash` and friends are not needed.
_SHELL_NAME = re.compile(r"(bash|zsh|sh|dash|ksh|mksh|fish)[0-9.]*")
KNOWN_SHELLS = "bash, zsh, sh, dash, ksh, mksh, fish"


class ShellRefusedError(Exception):
    """The requested shell may not run the command; the message is for the model."""


def resolve_requested_shell(
    requested: Any,
    *,
    workdir: Path,
    sandbox_policy: Mapping[str, Any],
    policy_cwd: Path,
    env: Mapping[str, str],
) -> str | None:
    """The shell binary to run for a model's `shell` argument; None means the default shell.

    Args:
        requested: the `shell` argument as the model sent it (absent: None).
        workdir: where the command starts; a relative path is resolved against it.
        sandbox_policy: the turn's policy (wire form), for its extra writable roots.
        policy_cwd: the turn's cwd, always counted as writable by the model.
        env: the command's environment, for `PATH` (a bare name) and `$TMPDIR`.

    Raises:
        ShellRefusedError: not a string, not found, not a known shell, or inside a directory
            the model can write.
    """
    if requested is None:
        return None
    if not isinstance(requested, str) or not requested.strip():
        raise ShellRefusedError(f"`shell` must be the name or path of a shell ({KNOWN_SHELLS})")
    found = requested if "/" in requested else shutil.which(requested, path=env.get("PATH", os.defpath))
    if found is None:
        raise ShellRefusedError(f"shell `{requested}` was not found on PATH")
    # Relative to where the command starts, as the command itself would see it (also a PATH of `.`).
    real = Path(os.path.realpath(workdir / found))
    if not real.is_file() or not os.access(real, os.X_OK):
        raise ShellRefusedError(f"shell `{requested}` is not an executable file")
    if not _SHELL_NAME.fullmatch(real.name):
        raise ShellRefusedError(
            f"shell `{requested}` ({real}) is not a known shell; use one of {KNOWN_SHELLS} "
            "installed on the system, or leave `shell` out to use the default shell"
        )
    root = _writable_root_holding(real, sandbox_policy, policy_cwd, workdir, env)
    if root is not None:
        raise ShellRefusedError(
            f"shell `{requested}` ({real}) lies in {root}, where commands can write; only a shell "
            "installed on the system may run commands, or leave `shell` out to use the default shell"
        )
    default = default_shell()
    # The default shell keeps its usual spelling (`/bin/bash`), so the command reads the same.
    return default if os.path.realpath(default) == str(real) else str(real)


def _writable_root_holding(
    path: Path,
    sandbox_policy: Mapping[str, Any],
    policy_cwd: Path,
    workdir: Path,
    env: Mapping[str, str],
) -> Path | None:
    """The root among the places a model can write that holds `path` (canonical), if any.

    The workspace, the workdir and the temporary directories count under every policy: a shell
    planted there under full access, or by an approved command, is still the model's.
    """
    extra: tuple[Path, ...] = ()
    if sandbox_policy.get("type") == "workspaceWrite":
        try:
            extra = SandboxPolicy.from_wire(sandbox_policy).writable_roots
        except TetherError:
            return Path("/")  # a policy that cannot be read leaves nowhere safe
    widest = SandboxPolicy(kind="workspace-write", writable_roots=(workdir, *extra))
    for root in widest.effective_writable_roots(policy_cwd, env):
        canonical = Path(os.path.realpath(root))
        if path == canonical or path.is_relative_to(canonical):
            return root
    return None
