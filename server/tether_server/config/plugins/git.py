"""Cloning a marketplace with the `git` binary: no prompts, no hooks, only the accepted transports.

Blocking (the daemon runs it off the event loop); every command has a deadline and is killed with
its process group when it passes it.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

from tether_server.errors import InternalError

TIMEOUT_S = 300.0
# Whatever the user's git config says, a marketplace URL reaches only these transports, and
# nothing in the clone (hooks, fsmonitor) runs.
_SAFE = (
    "-c", "protocol.allow=never",
    "-c", "protocol.https.allow=always",
    "-c", "protocol.http.allow=always",
    "-c", "protocol.ssh.allow=always",
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.fsmonitor=false",
)  # fmt: skip


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(GIT_TERMINAL_PROMPT="0", GIT_ALLOW_PROTOCOL="http:https:ssh", GIT_ASKPASS="true")
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    return env


def run_git(args: list[str], cwd: Path | None = None, timeout: float = TIMEOUT_S) -> str:
    """Run `git <args>`; its stdout.

    Raises:
        InternalError: it failed or timed out (the command, its status and output, as Codex says).
    """
    shown = "git " + " ".join(a for a in args if a != "--")
    with subprocess.Popen(
        ["git", *_SAFE, *args],
        cwd=cwd,
        env=_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    ) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise InternalError(f"{shown} timed out after {timeout:.0f}s") from None
    if proc.returncode != 0:
        raise InternalError(
            f"{shown} failed with status exit status: {proc.returncode}\n"
            f"stdout:\n{out.decode(errors='replace').strip()}\n"
            f"stderr:\n{err.decode(errors='replace').strip()}"
        )
    return out.decode(errors="replace").strip()


def clone(url: str, dest: Path, ref: str | None, sparse: list[str]) -> str:
    """Clone `url` into `dest` (at `ref`, limited to `sparse` paths); the revision checked out."""
    if sparse:
        run_git(["clone", "--no-checkout", "--", url, str(dest)])
        run_git(["sparse-checkout", "set", "--no-cone", "--", *sparse], cwd=dest)
        run_git(["reset", "--hard", "--quiet"], cwd=dest)
    else:
        run_git(["clone", "--", url, str(dest)])
    if ref is not None:
        # `ref` is checked (no leading '-'); the trailing `--` would turn a missing ref into a
        # different error than Codex's, so it is not added.
        run_git(["checkout", ref], cwd=dest)
    return run_git(["rev-parse", "HEAD"], cwd=dest)
