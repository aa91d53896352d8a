"""Why the sandbox cannot run, and how the user can fix it: stderr classification and texts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Diagnosis:
    """A reason the sandbox is unavailable and a remediation line for the user."""

    reason: str
    fix: str


NOT_LINUX = Diagnosis(
    "the bubblewrap sandbox only runs on Linux",
    'run the daemon on Linux, or use sandbox_mode = "danger-full-access" inside an external sandbox',
)
WSL1 = Diagnosis(
    "WSL1 cannot create the user namespaces bubblewrap needs",
    "use WSL2 for sandboxed commands",
)
BWRAP_MISSING = Diagnosis(
    "bubblewrap (bwrap) is not installed or not executable",
    "install bubblewrap: apt-get install bubblewrap (dnf install bubblewrap, pacman -S bubblewrap)",
)
PROBE_TIMEOUT = Diagnosis(
    "the sandbox probe did not finish in time",
    "check that bwrap runs by hand: bwrap --ro-bind / / --unshare-all -- true",
)
PROBE_UNCONFINED = Diagnosis(
    "the sandbox probe ran but the command was not confined (capabilities, no_new_privs or seccomp)",
    "upgrade bubblewrap to 0.5 or newer and check that seccomp is enabled in the kernel",
)

_PATTERNS: tuple[tuple[str, Diagnosis], ...] = (
    (
        "nesting depth or /proc/sys/user/max_",
        Diagnosis(
            "user namespaces are disabled or exhausted (or the daemon already runs inside a sandbox "
            "that forbids nesting)",
            "enable user namespaces: sysctl user.max_user_namespaces=15000; when nested, run the daemon "
            "outside the outer sandbox or use danger-full-access and rely on the outer sandbox",
        ),
    ),
    (
        "kernel does not allow non-privileged user namespaces",
        Diagnosis(
            "the kernel does not allow unprivileged user namespaces",
            "enable unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1",
        ),
    ),
    (
        "kernel does not support user namespaces",
        Diagnosis(
            "the kernel has no user namespace support",
            "use a kernel with CONFIG_USER_NS=y, or install bwrap setuid root",
        ),
    ),
    (
        "setting up uid map: Permission denied",
        Diagnosis(
            "AppArmor blocks bubblewrap from using user namespaces",
            "add an AppArmor profile for /usr/bin/bwrap with 'userns,', or "
            "sysctl kernel.apparmor_restrict_unprivileged_userns=0",
        ),
    ),
    (
        "setting up uid map: Operation not permitted",
        Diagnosis(
            "the daemon runs as a capability-less root inside another sandbox, which cannot map uids",
            "run the daemon outside the outer sandbox, or use danger-full-access and rely on it",
        ),
    ),
    (
        "Can't mount proc",
        Diagnosis(
            "the container refuses a fresh /proc mount",
            "run the container with --security-opt seccomp=unconfined --security-opt systempaths=unconfined",
        ),
    ),
    (
        "Creating new namespace failed: Operation not permitted",
        Diagnosis(
            "namespace creation is forbidden (a container's seccomp profile or missing capabilities)",
            "run the container with --security-opt seccomp=unconfined, or use danger-full-access inside it",
        ),
    ),
    (
        "loopback: Failed",
        Diagnosis(
            "bubblewrap cannot configure the network namespace",
            "allow user namespaces for bwrap (AppArmor: kernel.apparmor_restrict_unprivileged_userns=0)",
        ),
    ),
)


KNOWN: tuple[Diagnosis, ...] = (
    NOT_LINUX,
    WSL1,
    BWRAP_MISSING,
    PROBE_TIMEOUT,
    PROBE_UNCONFINED,
    *(diagnosis for _, diagnosis in _PATTERNS),
)
"""Every diagnosis the probe can give (the troubleshooting page lists them)."""


def classify_bwrap_failure(stderr: str, returncode: int) -> Diagnosis:
    """Map bwrap's stderr from a failed probe to a reason and a fix."""
    for needle, diagnosis in _PATTERNS:
        if needle in stderr:
            return diagnosis
    detail = stderr.strip().splitlines()[-1] if stderr.strip() else f"exit status {returncode}"
    return Diagnosis(
        f"bubblewrap failed to start a sandbox: {detail}",
        "run the probe command by hand to see why: bwrap --ro-bind / / --unshare-all -- true",
    )


def refusal(reason: str, fix: str) -> str:
    """The text of the error a refused command reports."""
    return f"sandbox unavailable, command not run: {reason}. To fix: {fix}"


def new_protected_warning(command: str, paths: Sequence[Path]) -> str:
    """The warning for `.git`/`.codex`/`.agents` entries a sandboxed command created.

    Such a repository (or config) belongs to the model: its configuration can name programs that
    run under the next `git` (core.fsmonitor, filters, hooks) or settings Codex tools read.
    """
    shown = ", ".join(str(p) for p in paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
    return (
        f"The command `{command}` created {shown}. A repository or config the model created can make "
        "git run programs of its choosing (core.fsmonitor, filters, hooks); check it with "
        "`git config --list --show-origin` before you run git there."
    )
