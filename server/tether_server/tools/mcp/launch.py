"""How a stdio MCP server is started so that it cannot outlive the daemon.

Commands get `PR_SET_PDEATHSIG` in their pre-exec hook; MCP servers are spawned by the `mcp` SDK,
which has no such hook, so the server is started through util-linux's `setpriv --pdeathsig KILL`:
the kernel kills it when the daemon dies, SIGKILL included. Processes the server starts itself are
its own to end (a daemon killed outright runs no code to reach them).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

SETPRIV_ARGS = ("--pdeathsig", "KILL", "--")


def server_argv(
    command: str, args: Sequence[str], env: Mapping[str, str] | None, cwd: str | Path | None
) -> tuple[str, list[str]]:
    """The (program, arguments) that start `command args` bound to the daemon's life.

    The command is resolved first (with the server's own PATH when its env sets one), so a missing
    program still fails as itself, not as a setpriv error; without setpriv it starts unwrapped.
    """
    setpriv = shutil.which("setpriv")
    if os.sep in command:  # a path, relative to the server's own working directory
        found = os.access(Path(cwd or ".") / command, os.X_OK)
        program = command if found else None
    else:
        program = shutil.which(command, path=(env or {}).get("PATH"))
    if setpriv is None or program is None:
        return command, list(args)
    return setpriv, [*SETPRIV_ARGS, program, *args]
