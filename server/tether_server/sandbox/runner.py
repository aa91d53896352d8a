"""Wrap a command for a policy: what the exec layer hands to `asyncio.create_subprocess_exec`.

    prepared = prepare(policy, cwd, argv, capability, hidden_paths=[socket_dir, auth_dir])
    try:
        proc = await asyncio.create_subprocess_exec(*prepared.argv, pass_fds=prepared.pass_fds, cwd=cwd)
        ...
    finally:
        prepared.cleanup()

Fail closed: a read-only or workspace-write command is never run bare. If the probe failed or
the mounts cannot be planned, `prepare` raises `SandboxError` saying why and how to fix it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tether_server.errors import SandboxError
from tether_server.sandbox import seccomp, startup, stub_journal, stubs
from tether_server.sandbox.bwrap import build_bwrap_argv
from tether_server.sandbox.messages import refusal
from tether_server.sandbox.mounts import MountPlan, appeared_since, plan_mounts
from tether_server.sandbox.policy import SandboxPolicy
from tether_server.sandbox.probe import SandboxCapability


@dataclass
class PreparedCommand:
    """A command ready to spawn.

    Attributes:
        argv: the argv to execute (bwrap + command, or the command itself when unsandboxed).
        pass_fds: fds the child must inherit (the seccomp program).
        on_new_protected: told, at `cleanup`, of the `.git`/`.codex`/`.agents` entries the
            command created under a writable root (a repository Tether must not trust and the
            user should know about); sandboxed commands only.
    """

    argv: list[str]
    pass_fds: tuple[int, ...] = ()
    on_new_protected: Callable[[list[Path]], None] | None = None
    _cleanups: list[Callable[[], None]] = field(default_factory=list, repr=False)
    _status_fd: int | None = field(default=None, repr=False)

    def setup_failed(self) -> bool:
        """After the process exited on its own: True when bwrap failed before running the command.

        Then the exit status and stderr (`bwrap: ...`) describe a sandbox error, not the command's
        result. Always False for unsandboxed commands. Call before `cleanup`; meaningless after
        you killed the process.
        """
        if self._status_fd is None:
            return False
        try:
            status = os.read(self._status_fd, 1 << 16)
        except BlockingIOError:
            status = b""
        return b'"exit-code"' not in status

    def _report_new_protected(self, mounts: MountPlan) -> None:
        if self.on_new_protected is None:
            return
        created = appeared_since(mounts)
        if created:
            self.on_new_protected(created)

    def cleanup(self) -> None:
        """Close inherited fds and remove mount stubs; call once the process has exited. Idempotent."""
        while self._cleanups:
            self._cleanups.pop()()


def prepare(
    policy: SandboxPolicy,
    cwd: Path,
    argv: Sequence[str],
    capability: SandboxCapability,
    *,
    hidden_paths: Sequence[Path] = (),
    env: Mapping[str, str] | None = None,
    workdir: Path | None = None,
) -> PreparedCommand:
    """Wrap `argv` for `policy`; danger-full-access and external policies run it unchanged.

    Args:
        policy: the command's sandbox policy.
        cwd: the policy cwd (absolute): the thread's or request's cwd, a writable root under
            workspace-write.
        argv: the command.
        capability: the daemon's probe result.
        hidden_paths: paths the command must not see (daemon socket dir, credential dirs).
        env: the command's environment, for `$TMPDIR`; the daemon's by default.
        workdir: where the command starts (absolute), `cwd` by default; it never becomes
            writable by being the workdir.

    Raises:
        SandboxError: the sandbox is unavailable or the mounts cannot be set up safely.
    """
    if not policy.wraps_commands:
        return PreparedCommand(argv=list(argv))
    _require_available(capability)
    mounts = plan_mounts(
        policy, cwd, env=os.environ if env is None else env, hidden_paths=hidden_paths, workdir=workdir
    )
    program = seccomp.host_program(
        network_access=policy.network_access, strict=policy.strict_network_syscalls
    )
    fd = seccomp.write_memfd(program)
    prepared = PreparedCommand(argv=[], pass_fds=(fd,), _cleanups=[lambda: os.close(fd)])
    try:
        held = stubs.acquire(mounts.stub_paths)
    except OSError as exc:
        prepared.cleanup()
        raise SandboxError(f"cannot create a mount target for a protected path: {exc}") from exc
    prepared._cleanups.append(lambda: stubs.release(held))
    try:
        placeholders = startup.acquire(mounts.placeholder_files)
    except OSError as exc:
        prepared.cleanup()
        raise SandboxError(f"cannot create a placeholder for a shell startup file: {exc}") from exc
    prepared._cleanups.append(lambda: startup.release(placeholders))
    prepared._cleanups.append(lambda: prepared._report_new_protected(mounts))
    status_read, status_write = os.pipe2(os.O_CLOEXEC)
    os.set_blocking(status_read, False)
    prepared.pass_fds = (fd, status_write)
    prepared._status_fd = status_read
    prepared._cleanups += [lambda: os.close(status_read), lambda: os.close(status_write)]
    prepared.argv = build_bwrap_argv(
        policy,
        mounts.workdir or Path(os.path.realpath(cwd)),
        argv,
        mounts=mounts,
        seccomp_fd=fd,
        status_fd=status_write,
        bwrap=capability.bwrap_path,
        disable_userns=capability.disable_userns,
    )
    return prepared


def open_stub_journal(home: Path) -> None:
    """At daemon start: remove the stubs and placeholders a killed daemon on `home` left, and
    journal this one's."""
    stub_journal.open_journal(home, {held.kind: held.remove for held in (stubs.held, startup.held)})


def _require_available(capability: SandboxCapability) -> None:
    if capability.available and capability.bwrap_path:
        return
    reason = capability.reason or "no sandbox probe has passed"
    fix = capability.fix or "restart the daemon so it probes the sandbox"
    raise SandboxError(refusal(reason, fix), data={"reason": reason, "fix": fix})
