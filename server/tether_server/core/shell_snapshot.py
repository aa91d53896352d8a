"""The user's login shell, run once per thread: commands source what it set up (`features.shell_snapshot`).

A login shell reads the user's profile, which can take hundreds of milliseconds (`pyenv init`,
`nvm`); paying that for every command is most of a command's latency. As Codex 0.169.0 does, the
profile runs once per thread, in the user's login shell, and what it set up is saved: the
variables it added or changed, its functions, aliases, `shopt` and `set -o` options, its umask.
A command the model asked to run in a login shell then runs in a plain `bash -c` that sources the
snapshot first; what clients see (`/bin/bash -lc '…'`) and what approvals and rules match stay the
login form.

The profile runs in the thread's sandbox, where it ran before snapshots existed (each command's
`bash -lc` read it there): it starts in the workspace and may read what the model wrote (a
`.bash_aliases` in a workspace that holds `$HOME`, a `./.env` it sources, a repository's config a
prompt helper runs `git` on), so it gets no more than a command would. Codex runs it outside.

The snapshot lives in the daemon's home, which sandboxed commands never see: it is run by later
unsandboxed (approved) commands too, so a sandboxed one must not be able to rewrite it. A command
gets it as an inherited descriptor and sources `/dev/fd/N`. A profile that fails or outlasts the
bound leaves no snapshot, and commands run in the login shell as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tether_server import log
from tether_server.config.features import CATALOGUE
from tether_server.config.features import enabled as feature_enabled
from tether_server.errors import SandboxError
from tether_server.sandbox.runner import PreparedCommand

_log = log.get("tether.core.shell_snapshot")

Wrap = Callable[[list[str]], PreparedCommand]
"""Wraps the profile's argv for the thread's sandbox (raises SandboxError when it cannot)."""


def snapshot_sandbox(
    gate: Callable[[dict[str, Any], Path, Path, list[str], bool], PreparedCommand],
    policy: dict[str, Any],
    cwd: Path,
) -> Wrap:
    """The profile's sandbox: the thread's own policy, as a sandboxed command of the thread gets."""
    return lambda argv: gate(policy, cwd, cwd, argv, True)


SNAPSHOT_DIR = "shell_snapshots"
# Long enough for a heavy profile; a hung one must not hold the thread's first command for longer.
DEFAULT_TIMEOUT_S = 10.0
# What the shell sets by itself, not the profile: copying them would pin stale values.
_VOLATILE = frozenset({"_", "SHLVL", "PWD", "OLDPWD", "BASH_EXECUTION_STRING"})
# Runs after the profile, in the same login shell. The umask is read before it is narrowed for the
# snapshot's own files; `login_shell` and `restricted_shell` cannot be set, so they are left out.
_CAPTURE = r"""
__tether_mask=$(umask)
umask 077
{
  printf 'umask %s\n' "$__tether_mask"
  declare -f
  alias -p
  shopt -p | grep -v -e ' login_shell$' -e ' restricted_shell$'
  set +o
} >&"$1" 2>/dev/null
env -0 >&"$2"
"""


class ShellSnapshots:
    """The threads' snapshots under `directory`, one per thread and shell, made at most once."""

    def __init__(self, directory: Path, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        self.directory = directory
        self.timeout_s = timeout_s
        self._tasks: dict[tuple[str, str], asyncio.Task[Path | None]] = {}
        self._remove_stale()

    def warm(self, thread_id: str, shell: str, cwd: Path, env: Mapping[str, str], wrap: Wrap) -> None:
        """Start the thread's snapshot if it has none yet.

        Only a login-shell command asks (`path_for`), not the thread's start as in Codex: a thread that
        runs no command never pays for a profile, which competes with a busy daemon for the CPU."""
        if supported(shell) and (thread_id, shell) not in self._tasks:
            task = asyncio.get_running_loop().create_task(self._take(thread_id, shell, cwd, dict(env), wrap))
            self._tasks[(thread_id, shell)] = task

    async def path_for(
        self, thread_id: str, shell: str, cwd: Path, env: Mapping[str, str], wrap: Wrap
    ) -> Path | None:
        """The thread's snapshot for `shell` (waiting at most the bound for it); None: run a login shell."""
        self.warm(thread_id, shell, cwd, env, wrap)
        task = self._tasks.get((thread_id, shell))
        if task is None:
            return None
        try:
            path = await asyncio.shield(task)
        except asyncio.CancelledError:
            if not task.cancelled():
                raise
            return None  # the daemon is stopping: the command gets its login shell
        return path if path is not None and path.exists() else None

    def drop(self, thread_id: str) -> None:
        """The thread is unloaded: its snapshots go. One still being made is let finish (within the
        bound) and then removed: killing a profile midway can leave its locks behind."""
        for key in [key for key in self._tasks if key[0] == thread_id]:
            task = self._tasks.pop(key)
            if task.done():
                _remove_result(task)  # now: the daemon may be stopping, with no loop turn left
            else:
                task.add_done_callback(_remove_result)

    def _remove_stale(self) -> None:
        """Snapshots of daemons that are gone (a crash leaves them): named after the daemon's pid."""
        if not self.directory.is_dir():
            return
        for path in self.directory.iterdir():
            parts = path.name.split(".")
            if len(parts) < 3 or not parts[1].isdigit() or not _alive(int(parts[1])):
                path.unlink(missing_ok=True)

    async def _take(
        self, thread_id: str, shell: str, cwd: Path, env: dict[str, str], wrap: Wrap
    ) -> Path | None:
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            body = await self._run_profile(shell, cwd, env, wrap)
            if body is None:
                return None
            target = self.directory / f"{thread_id}.{os.getpid()}.{Path(shell).name}.sh"
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as out:
                out.write(body)
            return target
        except OSError as exc:  # a full disk or an unwritable home: commands keep the login shell
            _log.warning("shell_snapshot.failed", shell=shell, error=str(exc))
            return None

    async def _run_profile(self, shell: str, cwd: Path, env: dict[str, str], wrap: Wrap) -> str | None:
        # Memory files, not files in the daemon's home: the sandboxed shell sees neither that home
        # nor any path the capture could be redirected to, only the two descriptors it inherits.
        body_fd, env_fd = os.memfd_create("tether-snapshot-body"), os.memfd_create("tether-snapshot-env")
        try:
            return await self._run_in_sandbox(shell, cwd, env, wrap, body_fd, env_fd)
        finally:
            os.close(body_fd)
            os.close(env_fd)

    async def _run_in_sandbox(
        self, shell: str, cwd: Path, env: dict[str, str], wrap: Wrap, body_fd: int, env_fd: int
    ) -> str | None:
        try:
            prepared = wrap([shell, "-lc", _CAPTURE, "tether-shell-snapshot", str(body_fd), str(env_fd)])
        except SandboxError as exc:
            _log.warning("shell_snapshot.failed", shell=shell, error=exc.message)
            return None
        try:
            proc = await asyncio.create_subprocess_exec(
                *prepared.argv, pass_fds=(*prepared.pass_fds, body_fd, env_fd),
                cwd=cwd, env=env, start_new_session=True,
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
            )  # fmt: skip
        except OSError as exc:
            prepared.cleanup()
            _log.warning("shell_snapshot.failed", shell=shell, error=str(exc))
            return None
        try:
            return await self._captured(proc, shell, body_fd, env, env_fd)
        finally:
            prepared.cleanup()

    async def _captured(
        self, proc: asyncio.subprocess.Process, shell: str, body_fd: int, env: dict[str, str], env_fd: int
    ) -> str | None:
        try:
            status = await asyncio.wait_for(proc.wait(), self.timeout_s)
        except TimeoutError:
            _log.warning("shell_snapshot.timed_out", shell=shell, timeout_s=self.timeout_s)
            status = None
        finally:
            if proc.returncode is None:
                # Abandoned (the bound, the daemon stopping): the whole group, so a hung `sleep`
                # the profile started does not outlive it. SIGTERM first: shells then run their
                # EXIT traps, which release locks (`pyenv rehash` leaves its lock to a SIGKILL and
                # every login shell on the machine then waits a minute for it).
                _signal_group(proc.pid, signal.SIGTERM)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(proc.wait(), 1.0)
                _signal_group(proc.pid, signal.SIGKILL)
                await proc.wait()
            # A profile that finished keeps what it started in the background, as a login shell would.
        if status != 0:
            if status is not None:
                _log.warning("shell_snapshot.failed", shell=shell, status=status)
            return None
        body = _read_all(body_fd).decode(errors="replace")
        after = _parse_env(_read_all(env_fd))
        return _exports(env, after) + body


def supported(shell: str) -> bool:
    """Only bash: the capture speaks bash (zsh and sh users keep a login shell per command)."""
    return Path(shell).name == "bash"


def snapshot_argv(argv: list[str], fd: int) -> list[str]:
    """`[bash, -lc, cmd]` as a plain shell sourcing the snapshot open on `fd`, then running `cmd`."""
    source = f"if . /dev/fd/{fd} >/dev/null 2>&1; then :; fi; exec {fd}<&-\n"
    return [argv[0], "-c", source + argv[2]]


def _exports(before: Mapping[str, str], after: Mapping[str, str]) -> str:
    lines = ["# Tether shell snapshot: what the login shell's profile set up.\n"]
    for key, value in after.items():
        if key not in _VOLATILE and before.get(key) != value and key.isidentifier():
            lines.append(f"export {key}={shlex.quote(value)}\n")
    gone = [key for key in before if key not in after and key not in _VOLATILE and key.isidentifier()]
    lines.extend(f"unset {key}\n" for key in gone)
    return "".join(lines)


def _parse_env(raw: bytes) -> dict[str, str]:
    out: dict[str, str] = {}
    for entry in raw.decode(errors="replace").split("\0"):
        key, sep, value = entry.partition("=")
        if sep:
            out[key] = value
    return out


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def _remove_result(task: asyncio.Task[Path | None]) -> None:
    if not task.cancelled() and task.exception() is None:
        path = task.result()
        if path is not None:
            path.unlink(missing_ok=True)


def _read_all(fd: int) -> bytes:
    size = os.fstat(fd).st_size
    return os.pread(fd, size, 0) if size else b""


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


async def open_snapshot(
    snapshots: ShellSnapshots | None,
    thread_id: str,
    argv: list[str],
    cwd: Path,
    env: Mapping[str, str],
    wrap: Wrap,
) -> tuple[list[str], int | None]:
    """What to run for a `[shell, -lc, cmd]` argv, and the snapshot's descriptor the child must
    inherit (the caller closes it once the child runs); other argvs, or no snapshot: unchanged."""
    if snapshots is None or len(argv) != 3 or argv[1] != "-lc" or not supported(argv[0]):
        return argv, None
    path = await snapshots.path_for(thread_id, argv[0], cwd, env, wrap)
    if path is None:
        return argv, None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return argv, None
    return snapshot_argv(argv, fd), fd


_FEATURE = next(feature for feature in CATALOGUE if feature.name == "shell_snapshot")
# Tests and slow machines set the bound; the default is Tether's choice (Codex's is not on the wire).
TIMEOUT_ENV = "TETHER_SHELL_SNAPSHOT_TIMEOUT_MS"


def for_config(home: Path, features: object, allow_login_shell: bool) -> ShellSnapshots | None:
    """The daemon's snapshots: none when `features.shell_snapshot` is off (Codex's default: on) or
    commands never run in a login shell anyway (`allow_login_shell = false`)."""
    if not allow_login_shell or not feature_enabled(_FEATURE, features, {}):
        return None
    raw = os.environ.get(TIMEOUT_ENV, "")
    timeout_s = int(raw) / 1000 if raw.isdigit() else DEFAULT_TIMEOUT_S
    return ShellSnapshots(home / SNAPSHOT_DIR, timeout_s)
