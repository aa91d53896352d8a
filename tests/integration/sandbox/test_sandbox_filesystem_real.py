"""Filesystem confinement under real bwrap, as root and as the unprivileged `nobody`."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from subprocess import CompletedProcess

import pytest

from tether_server.sandbox import SandboxCapability, SandboxPolicy, prepare

Run = Callable[..., Awaitable[CompletedProcess[str]]]


def python_argv(code: str) -> list[str]:
    """Stdlib-only Python inside the sandbox (root tests only: nobody cannot read root's pyenv)."""
    return [sys.executable, "-I", "-S", "-c", code]


# /tmp is where the test dirs live, so keep it out of the writable roots.
WORKSPACE_WRITE = SandboxPolicy(kind="workspace-write", exclude_slash_tmp=True, exclude_tmpdir_env_var=True)
USERS = pytest.mark.parametrize("as_nobody", [False, True], ids=["root", "nobody"])


@USERS
async def test_writes_inside_the_workspace_succeed_and_outside_are_denied(
    capability: SandboxCapability, run_sandboxed: Run, shared_dir: Path, workspace: Path, as_nobody: bool
) -> None:
    outside = shared_dir / "outside"
    outside.mkdir(mode=0o777)
    outside.chmod(0o777)
    script = f"echo in > inside.txt; echo out > {outside}/x.txt"
    outcome = await run_sandboxed(
        WORKSPACE_WRITE, workspace, ["sh", "-c", script], capability, as_nobody=as_nobody
    )
    assert (workspace / "inside.txt").read_text() == "in\n"
    assert not (outside / "x.txt").exists()
    assert "Read-only file system" in outcome.stderr


@USERS
async def test_git_metadata_stays_read_only_inside_a_writable_workspace(
    capability: SandboxCapability, run_sandboxed: Run, workspace: Path, as_nobody: bool
) -> None:
    script = "echo evil > .git/HEAD; touch .git/hook; rm -rf .git; mkdir .codex/x"
    outcome = await run_sandboxed(
        WORKSPACE_WRITE, workspace, ["sh", "-c", script], capability, as_nobody=as_nobody
    )
    assert (workspace / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"
    assert not (workspace / ".git" / "hook").exists()
    assert outcome.stderr.count("Read-only file system") >= 2


async def test_a_missing_codex_dir_cannot_be_created_and_no_stub_is_left(
    capability: SandboxCapability, run_sandboxed: Run, workspace: Path
) -> None:
    outcome = await run_sandboxed(
        WORKSPACE_WRITE, workspace, ["sh", "-c", "mkdir -p .codex/x && echo made"], capability
    )
    assert "made" not in outcome.stdout
    assert not (workspace / ".codex").exists()


async def test_the_gitdir_of_a_worktree_pointer_file_is_read_only(
    capability: SandboxCapability, run_sandboxed: Run, workspace: Path
) -> None:
    worktree = workspace / "wt"
    worktree.mkdir()
    (workspace / ".git" / "worktrees" / "wt").mkdir(parents=True)
    (worktree / ".git").write_text(f"gitdir: {workspace / '.git' / 'worktrees' / 'wt'}\n")
    roots = SandboxPolicy(
        kind="workspace-write",
        writable_roots=(workspace,),
        exclude_slash_tmp=True,
        exclude_tmpdir_env_var=True,
    )
    script = "echo x > .git; touch ../.git/worktrees/wt/index; echo ok > file"
    await run_sandboxed(roots, worktree, ["sh", "-c", script], capability)
    assert (worktree / ".git").read_text().startswith("gitdir:")
    assert not (workspace / ".git" / "worktrees" / "wt" / "index").exists()
    assert (worktree / "file").read_text() == "ok\n"


async def test_read_only_policy_denies_writes_to_the_workspace(
    capability: SandboxCapability, run_sandboxed: Run, workspace: Path
) -> None:
    outcome = await run_sandboxed(
        SandboxPolicy(kind="read-only"), workspace, ["sh", "-c", "cat .git/HEAD; echo x > f"], capability
    )
    assert outcome.stdout == "ref: refs/heads/main\n"
    assert "Read-only file system" in outcome.stderr
    assert not (workspace / "f").exists()


@USERS
async def test_host_sysctls_under_proc_sys_are_not_writable(
    capability: SandboxCapability, run_sandboxed: Run, workspace: Path, as_nobody: bool
) -> None:
    # Writes the current value back, so a failing sandbox would still leave the host unchanged.
    knob = "/proc/sys/kernel/printk_ratelimit"
    script = f"v=$(cat {knob}); echo $v > {knob} && echo WRITABLE"
    outcome = await run_sandboxed(
        WORKSPACE_WRITE, workspace, ["sh", "-c", script], capability, as_nobody=as_nobody
    )
    assert "WRITABLE" not in outcome.stdout
    assert "Read-only file system" in outcome.stderr or "Permission denied" in outcome.stderr


async def test_mount_and_umount_are_denied_so_git_cannot_be_unprotected(
    capability: SandboxCapability, run_sandboxed: Run, workspace: Path
) -> None:
    script = (
        "mount -t tmpfs none /mnt && echo MOUNTED; umount .git && echo UNMOUNTED; "
        "mount -o remount,rw,bind .git && echo REMOUNTED; echo evil > .git/HEAD"
    )
    outcome = await run_sandboxed(WORKSPACE_WRITE, workspace, ["sh", "-c", script], capability)
    assert not {"MOUNTED", "UNMOUNTED", "REMOUNTED"} & set(outcome.stdout.split())
    assert (workspace / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"


async def test_sandboxed_commands_have_no_capabilities_no_new_privs_and_a_seccomp_filter(
    capability: SandboxCapability, run_sandboxed: Run, workspace: Path
) -> None:
    outcome = await run_sandboxed(WORKSPACE_WRITE, workspace, ["cat", "/proc/self/status"], capability)
    fields = dict(line.split(":\t", 1) for line in outcome.stdout.splitlines() if ":\t" in line)
    assert int(fields["CapEff"], 16) == 0
    assert fields["NoNewPrivs"] == "1"
    assert fields["Seccomp"] == "2"


@USERS
async def test_hidden_directories_cannot_be_listed_or_read(
    capability: SandboxCapability, run_sandboxed: Run, shared_dir: Path, workspace: Path, as_nobody: bool
) -> None:
    secret_dir = shared_dir / "daemon"
    secret_dir.mkdir(mode=0o755)
    (secret_dir / "token").write_text("s3cret")
    (secret_dir / "token").chmod(0o644)
    outcome = await run_sandboxed(
        SandboxPolicy(kind="read-only"),
        workspace,
        ["sh", "-c", f"ls {secret_dir}; cat {secret_dir}/token"],
        capability,
        hidden_paths=[secret_dir],
        as_nobody=as_nobody,
    )
    assert "s3cret" not in outcome.stdout
    assert "token" not in outcome.stdout


async def test_a_hidden_credential_file_cannot_be_read(
    capability: SandboxCapability, run_sandboxed: Run, shared_dir: Path, workspace: Path
) -> None:
    auth = shared_dir / "auth.json"
    auth.write_text('{"token": "s3cret"}')
    outcome = await run_sandboxed(
        SandboxPolicy(kind="read-only"), workspace, ["cat", str(auth)], capability, hidden_paths=[auth]
    )
    assert "s3cret" not in outcome.stdout
    assert outcome.returncode != 0


async def test_python_multiprocessing_still_works_with_the_family_only_filter(
    capability: SandboxCapability, run_sandboxed: Run, workspace: Path
) -> None:
    code = (
        "import multiprocessing as mp, os, tempfile\n"
        "tempfile.tempdir = os.getcwd()\n"
        "ctx = mp.get_context('forkserver')\n"
        "with ctx.Pool(2) as pool: print(sum(pool.map(abs, [-1, -2, 3])))\n"
    )
    lenient = SandboxPolicy(
        kind="workspace-write",
        exclude_slash_tmp=True,
        exclude_tmpdir_env_var=True,
        strict_network_syscalls=False,
    )
    outcome = await run_sandboxed(lenient, workspace, python_argv(code), capability)
    assert outcome.stdout.strip() == "6", outcome.stderr


async def test_a_failing_command_is_not_mistaken_for_a_sandbox_setup_failure(
    capability: SandboxCapability, workspace: Path
) -> None:
    prepared = prepare(SandboxPolicy(kind="read-only"), workspace, ["sh", "-c", "exit 3"], capability)
    try:
        proc = await asyncio.create_subprocess_exec(*prepared.argv, pass_fds=prepared.pass_fds)
        async with asyncio.timeout(10):
            assert await proc.wait() == 3
        assert not prepared.setup_failed()
    finally:
        prepared.cleanup()
