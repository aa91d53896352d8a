"""Golden bwrap argv for each policy shape, and the ordering rules later mounts depend on."""

from __future__ import annotations

from pathlib import Path

from tether_server.sandbox.bwrap import build_bwrap_argv
from tether_server.sandbox.mounts import MountPlan
from tether_server.sandbox.policy import SandboxPolicy

PREFIX = [
    "/usr/bin/bwrap",
    "--new-session", "--die-with-parent", "--unshare-user", "--disable-userns", "--unshare-pid",
    "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
]  # fmt: skip
BASE = [
    "--cap-drop", "ALL",
    "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
    "--ro-bind", "/proc/sys", "/proc/sys",
    "--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger",
    "--ro-bind-try", "/proc/irq", "/proc/irq",
    "--ro-bind-try", "/proc/bus", "/proc/bus",
    "--ro-bind-try", "/proc/fs", "/proc/fs",
]  # fmt: skip

WORKSPACE_PLAN = MountPlan(
    writable_roots=(Path("/tmp"), Path("/w")),
    read_only_paths=(Path("/w/.git"),),
    stub_paths=(Path("/w/.codex"),),
    hidden_dirs=(Path("/run/tether"),),
    hidden_files=(Path("/root/.tether/auth.json"),),
)


def _argv(policy: SandboxPolicy, mounts: MountPlan, seccomp_fd: int | None = 7) -> list[str]:
    return build_bwrap_argv(
        policy, Path("/w"), ["ls", "-l"], mounts=mounts, seccomp_fd=seccomp_fd, bwrap="/usr/bin/bwrap"
    )


def test_read_only_without_network_matches_the_golden_argv() -> None:
    argv = _argv(SandboxPolicy(kind="read-only"), MountPlan())
    assert argv == [
        *PREFIX, "--unshare-net", *BASE,
        "--chdir", "/w", "--setenv", "TETHER_SANDBOX", "1",
        "--setenv", "CODEX_SANDBOX_NETWORK_DISABLED", "1",
        "--seccomp", "7", "--", "ls", "-l",
    ]  # fmt: skip


def test_workspace_write_with_network_matches_the_golden_argv() -> None:
    argv = _argv(SandboxPolicy(kind="workspace-write", network_access=True), WORKSPACE_PLAN, seccomp_fd=None)
    assert argv == [
        *PREFIX, *BASE,
        "--bind", "/tmp", "/tmp", "--bind", "/w", "/w",
        "--ro-bind", "/w/.git", "/w/.git",
        "--perms", "555", "--tmpfs", "/w/.codex", "--remount-ro", "/w/.codex",
        "--perms", "000", "--tmpfs", "/run/tether", "--remount-ro", "/run/tether",
        "--ro-bind", "/dev/null", "/root/.tether/auth.json",
        "--chdir", "/w", "--setenv", "TETHER_SANDBOX", "1",
        "--", "ls", "-l",
    ]  # fmt: skip


def test_network_off_unshares_the_network_namespace_and_network_on_does_not() -> None:
    assert "--unshare-net" in _argv(SandboxPolicy(kind="workspace-write"), WORKSPACE_PLAN)
    assert "--unshare-net" not in _argv(SandboxPolicy(kind="read-only", network_access=True), MountPlan())


def test_capabilities_are_always_dropped_and_proc_sys_is_read_only_after_proc() -> None:
    argv = _argv(SandboxPolicy(kind="workspace-write"), WORKSPACE_PLAN)
    assert argv[argv.index("--cap-drop") + 1] == "ALL"
    proc = argv.index("--proc")
    assert argv[proc + 1 : proc + 5] == ["/proc", "--ro-bind", "/proc/sys", "/proc/sys"]


def test_later_mounts_override_earlier_ones_in_the_safe_order() -> None:
    argv = _argv(SandboxPolicy(kind="workspace-write"), WORKSPACE_PLAN)
    root = argv.index("/")
    writable = argv.index("/w")
    protected = argv.index("/w/.git")
    stub = argv.index("/w/.codex")
    hidden = argv.index("/run/tether")
    command = argv.index("--")
    assert root < writable < protected < stub < hidden < command
    assert argv.index("--seccomp") < command


def test_the_command_follows_the_separator_verbatim() -> None:
    argv = build_bwrap_argv(
        SandboxPolicy(kind="read-only"),
        Path("/w"),
        ["sh", "-c", "echo --bind / /"],
        mounts=MountPlan(),
        seccomp_fd=None,
    )
    assert argv[0] == "bwrap"
    assert argv[argv.index("--") :] == ["--", "sh", "-c", "echo --bind / /"]


def test_a_status_fd_is_passed_just_before_the_command() -> None:
    argv = build_bwrap_argv(
        SandboxPolicy(kind="read-only"), Path("/w"), ["true"], mounts=MountPlan(), seccomp_fd=3, status_fd=4
    )
    assert argv[-6:] == ["--seccomp", "3", "--json-status-fd", "4", "--", "true"]


def test_a_reexposed_file_is_bound_inside_its_traversable_hidden_dir_before_the_remount() -> None:
    plan = MountPlan(
        hidden_dirs=(Path("/run"), Path("/srv/secret")),
        reexposed_files=(Path("/run/systemd/resolve/stub-resolv.conf"),),
    )
    argv = _argv(SandboxPolicy(kind="read-only", network_access=True), plan)
    resolv = "/run/systemd/resolve/stub-resolv.conf"
    start = argv.index("/run") - 3
    assert argv[start : start + 9] == [
        "--perms", "111", "--tmpfs", "/run", "--ro-bind", resolv, resolv, "--remount-ro", "/run",
    ]  # fmt: skip
    secret = argv.index("/srv/secret") - 3
    assert argv[secret : secret + 6] == [
        "--perms", "000", "--tmpfs", "/srv/secret", "--remount-ro", "/srv/secret",
    ]  # fmt: skip


def test_disable_userns_follows_unshare_user_and_is_left_out_for_an_old_bwrap() -> None:
    argv = _argv(SandboxPolicy(kind="read-only"), MountPlan())
    assert argv[argv.index("--unshare-user") + 1] == "--disable-userns"
    old = build_bwrap_argv(
        SandboxPolicy(kind="read-only"), Path("/w"), ["true"], mounts=MountPlan(), seccomp_fd=None,
        disable_userns=False,
    )  # fmt: skip
    assert "--disable-userns" not in old and "--unshare-user" in old
