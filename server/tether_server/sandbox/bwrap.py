"""The bubblewrap argv for a policy: a pure function of its inputs, golden-tested.

Order matters; later mounts win. Namespaces and capabilities first, then the read-only root,
`/dev`, a fresh `/proc` with `/proc/sys` re-bound read-only (as root, sysctl writes are checked
against the euid, not capabilities, so `--cap-drop ALL` alone leaves host sysctls writable), then
writable roots (outer first), protected subpaths re-bound read-only, stubs for missing protected
paths, and the hidden-path masks last. See sandbox.md §2 and §9.3.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from tether_server.sandbox.mounts import MountPlan
from tether_server.sandbox.policy import SandboxPolicy

DEFAULT_BWRAP = "bwrap"
SANDBOX_ENV_MARKER = "TETHER_SANDBOX"
NETWORK_DISABLED_ENV = "CODEX_SANDBOX_NETWORK_DISABLED"

_PROC_READ_ONLY_TRY = ("/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs")


def build_bwrap_argv(
    policy: SandboxPolicy,
    cwd: Path,
    command: Sequence[str],
    *,
    mounts: MountPlan,
    seccomp_fd: int | None,
    status_fd: int | None = None,
    bwrap: str = DEFAULT_BWRAP,
    disable_userns: bool = True,
) -> list[str]:
    """The full argv that runs `command` under bwrap for `policy`.

    Args:
        policy: a read-only or workspace-write policy.
        cwd: the command's working directory inside the sandbox (canonical); it is only the
            `--chdir` target, never a writable root by itself.
        command: the command and its arguments.
        mounts: canonical mount plan from `mounts.plan_mounts` (writable roots, protected
            subpaths, stubs, hidden paths).
        seccomp_fd: an inherited fd holding the BPF program, or None for no filter.
        status_fd: an inherited fd for bwrap's JSON status records; an `exit-code` record
            appears only if the command itself ran, which tells setup failures apart.
        bwrap: path of the bwrap binary.
        disable_userns: pass `--disable-userns` (bwrap 0.8+; see `SandboxCapability`).
    """
    argv = [bwrap, *_namespaces(policy, disable_userns), "--cap-drop", "ALL", *_base_filesystem()]
    for root in mounts.writable_roots:
        argv += ["--bind", str(root), str(root)]
    for path in (*mounts.read_only_paths, *mounts.placeholder_files):
        argv += ["--ro-bind-try" if path in mounts.nested_paths else "--ro-bind", str(path), str(path)]
    for path in mounts.stub_paths:
        argv += _read_only_tmpfs(path, "555")
    for path in mounts.hidden_dirs:
        argv += _hidden_dir(path, [f for f in mounts.reexposed_files if f.is_relative_to(path)])
    for path in mounts.hidden_files:
        argv += ["--ro-bind", "/dev/null", str(path)]
    argv += ["--chdir", str(cwd), "--setenv", SANDBOX_ENV_MARKER, "1"]
    if not policy.network_access:
        argv += ["--setenv", NETWORK_DISABLED_ENV, "1"]
    if seccomp_fd is not None:
        argv += ["--seccomp", str(seccomp_fd)]
    if status_fd is not None:
        argv += ["--json-status-fd", str(status_fd)]
    return [*argv, "--", *command]


def dies_with_parent(argv: Sequence[str]) -> bool:
    """Whether `argv` is a command line `build_bwrap_argv` made: bwrap then kills the whole sandbox
    when its parent (the daemon) dies, so the spawner need not arrange that itself."""
    return list(argv[1:3]) == _LIFETIME and os.path.basename(argv[0]) == "bwrap"


_LIFETIME = ["--new-session", "--die-with-parent"]


def _namespaces(policy: SandboxPolicy, disable_userns: bool) -> list[str]:
    # --unshare-pid makes killing the outer bwrap take the whole tree down (sandbox.md §2.6).
    # --disable-userns (needs --unshare-user): no nested user namespace, so no fresh capability set
    # (and less kernel surface) inside the sandbox.
    flags = [*_LIFETIME, "--unshare-user"]
    if disable_userns:
        flags.append("--disable-userns")
    flags.append("--unshare-pid")
    flags += ["--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not policy.network_access:
        flags.append("--unshare-net")
    return flags


def _base_filesystem() -> list[str]:
    argv = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys"]
    for path in _PROC_READ_ONLY_TRY:
        argv += ["--ro-bind-try", path, path]
    return argv


def _hidden_dir(path: Path, reexposed: Sequence[Path]) -> list[str]:
    if not reexposed:
        return _read_only_tmpfs(path, "000")
    # Traversable (to reach the re-bound files) but not listable; bwrap creates the parents.
    argv = ["--perms", "111", "--tmpfs", str(path)]
    for file in reexposed:
        argv += ["--ro-bind", str(file), str(file)]
    return [*argv, "--remount-ro", str(path)]


def _read_only_tmpfs(path: Path, perms: str) -> list[str]:
    return ["--perms", perms, "--tmpfs", str(path), "--remount-ro", str(path)]
