"""Escape attempts against real bwrap (issue 11, items 1, 3b, 10), as root and as `nobody`.

Each test performs the attack itself: writing from a workdir outside the workspace, running with
`/` as the cwd, nesting a user namespace, planting `.git/config`, reading `~/.ssh`, and connecting
to host unix sockets with the network on.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from subprocess import CompletedProcess
from typing import Any

import pytest
from tests.integration.sandbox.conftest import AS_NOBODY, RUN_LIMIT_S, Listeners

from tether_server.sandbox import SandboxCapability, SandboxPolicy
from tether_server.sandbox.bwrap import build_bwrap_argv
from tether_server.sandbox.hidden import host_hidden_paths as _host_hidden_paths
from tether_server.sandbox.mounts import plan_mounts

Run = Callable[..., Awaitable[CompletedProcess[str]]]
WORKSPACE_WRITE = SandboxPolicy(kind="workspace-write", exclude_slash_tmp=True, exclude_tmpdir_env_var=True)
NETWORK_ON = SandboxPolicy(
    kind="workspace-write", network_access=True, exclude_slash_tmp=True, exclude_tmpdir_env_var=True
)
USERS = pytest.mark.parametrize("as_nobody", [False, True], ids=["root", "nobody"])
# Debian's python is readable by nobody (root's pyenv is not).
SYSTEM_PYTHON = "/usr/bin/python3"
CONNECT_ALL = """
import socket, sys
for path in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path)
        print("connected", path)
    except OSError as exc:
        print("failed", path, exc.errno)
"""


def host_hidden_paths(environ: dict[str, str], **kw: Any) -> list[Path]:
    """The daemon's hidden paths, less those `nobody` cannot reach (root's own credential files,
    when this machine has some): the daemon runs bwrap as the user it computed them for, these
    tests compute them as root and may run bwrap as `nobody`, which cannot mount over them."""
    return [p for p in _host_hidden_paths(environ, **kw) if _reachable_by_others(p.parent)]


def _reachable_by_others(path: Path) -> bool:
    return all(os.stat(part).st_mode & 0o001 for part in (path, *path.parents) if part.exists())


def _dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(0o777)
    return path


@USERS
async def test_a_workdir_outside_the_writable_roots_is_read_only(
    capability: SandboxCapability, run_sandboxed: Run, shared_dir: Path, workspace: Path, as_nobody: bool
) -> None:
    outside = _dir(shared_dir / "outside")
    script = f"echo x > pwned; echo in > {workspace}/inside.txt"
    outcome = await run_sandboxed(
        WORKSPACE_WRITE, workspace, ["sh", "-c", script], capability, workdir=outside, as_nobody=as_nobody
    )
    assert not (outside / "pwned").exists()
    assert "Read-only file system" in outcome.stderr
    assert (workspace / "inside.txt").read_text() == "in\n"  # the policy cwd stays writable


@USERS
async def test_slash_as_the_cwd_is_not_bound_writable_and_the_host_proc_stays_hidden(
    capability: SandboxCapability, run_sandboxed: Run, shared_dir: Path, as_nobody: bool
) -> None:
    etc_probe = Path("/etc") / f"tether-sbx-{uuid.uuid4().hex}"
    script = f"echo x > {shared_dir}/pwned; echo x > {etc_probe}; cat /proc/{os.getpid()}/cmdline; ls /proc"
    try:
        outcome = await run_sandboxed(
            WORKSPACE_WRITE, Path("/"), ["sh", "-c", script], capability, as_nobody=as_nobody
        )
        assert not etc_probe.exists()
    finally:
        etc_probe.unlink(missing_ok=True)
    assert not (shared_dir / "pwned").exists()
    assert "pytest" not in outcome.stdout  # this test's own process is not in the sandbox's /proc
    pids = [name for name in outcome.stdout.split() if name.isdigit()]
    assert 0 < len(pids) < 10, outcome.stdout  # the sandbox's pid namespace, not the host's


@USERS
async def test_nested_user_namespaces_are_refused(
    capability: SandboxCapability, run_sandboxed: Run, workspace: Path, as_nobody: bool
) -> None:
    script = "unshare -U true && echo NESTED; unshare -Ur true && echo NESTED_ROOT"
    outcome = await run_sandboxed(
        WORKSPACE_WRITE, workspace, ["sh", "-c", script], capability, as_nobody=as_nobody
    )
    assert "NESTED" not in outcome.stdout
    assert "unshare failed" in outcome.stderr


@USERS
async def test_git_config_cannot_be_planted_in_a_cwd_without_git_and_no_stub_is_left(
    capability: SandboxCapability, run_sandboxed: Run, shared_dir: Path, as_nobody: bool
) -> None:
    plain = _dir(shared_dir / "plain")
    script = (
        "mkdir -p .git/hooks; printf '[core]\\n\\tfsmonitor = touch /tmp/owned\\n' > .git/config; "
        "rmdir .git; mv .git moved; echo ok > file"
    )
    outcome = await run_sandboxed(
        WORKSPACE_WRITE, plain, ["sh", "-c", script], capability, as_nobody=as_nobody
    )
    assert sorted(p.name for p in plain.iterdir()) == ["file"]  # no .git, no stub, no `moved`
    assert "Read-only file system" in outcome.stderr


@USERS
async def test_home_credential_stores_are_unreadable_unless_configured(
    capability: SandboxCapability, run_sandboxed: Run, shared_dir: Path, workspace: Path, as_nobody: bool
) -> None:
    home = _dir(shared_dir / "home")
    _dir(home / ".ssh")
    for path, text in ((home / ".ssh" / "id_x", "PRIVATE-KEY"), (home / ".netrc", "machine x password pw")):
        path.write_text(text)
        path.chmod(0o644)
    script = f"cat {home}/.ssh/id_x; cat {home}/.netrc; ls -a {home}/.ssh"
    hidden = host_hidden_paths({"HOME": str(home)})
    outcome = await run_sandboxed(
        SandboxPolicy(kind="read-only"), workspace, ["sh", "-c", script], capability,
        hidden_paths=hidden, as_nobody=as_nobody,
    )  # fmt: skip
    assert "PRIVATE-KEY" not in outcome.stdout and "password" not in outcome.stdout
    assert "id_x" not in outcome.stdout
    allowed = host_hidden_paths({"HOME": str(home)}, readable_credentials=[".netrc"])
    configured = await run_sandboxed(
        SandboxPolicy(kind="read-only"), workspace, ["cat", f"{home}/.netrc"], capability,
        hidden_paths=allowed, as_nobody=as_nobody,
    )  # fmt: skip
    assert configured.stdout == "machine x password pw"


@USERS
async def test_host_unix_sockets_are_unreachable_with_network_on(
    capability: SandboxCapability,
    run_sandboxed: Run,
    shared_dir: Path,
    workspace: Path,
    listeners: Listeners,
    as_nobody: bool,
) -> None:
    runtime = _dir(shared_dir / "xdg")
    agent = _dir(shared_dir / "ssh-agent")
    bus = _dir(shared_dir / "dbus")
    docker = _dir(Path("/run") / f"tether-sbx-{uuid.uuid4().hex}")
    try:
        targets = [
            listeners.listen(runtime / "bus"),
            listeners.listen(agent / "agent.1"),
            listeners.listen(bus / "socket"),
            listeners.listen(docker / "docker.sock"),
        ]
        visible = listeners.listen(_dir(shared_dir / "visible") / "ok.sock")
        env = {
            "HOME": str(shared_dir / "home"),
            "XDG_RUNTIME_DIR": str(runtime),
            "SSH_AUTH_SOCK": str(agent / "agent.1"),
            "DBUS_SESSION_BUS_ADDRESS": f"unix:path={bus / 'socket'}",
        }
        argv = [SYSTEM_PYTHON, "-I", "-S", "-c", CONNECT_ALL, *map(str, targets), str(visible)]
        outcome = await run_sandboxed(
            NETWORK_ON, workspace, argv, capability, hidden_paths=host_hidden_paths(env), as_nobody=as_nobody
        )
        lines = outcome.stdout.splitlines()
        assert f"connected {visible}" in lines, outcome  # the network really is on
        assert [line for line in lines if line.startswith("connected")] == [f"connected {visible}"]
        assert listeners.accepted() == [str(visible)]
    finally:
        for path in docker.iterdir():
            path.unlink()
        docker.rmdir()


async def test_run_and_var_run_are_empty_in_the_sandbox(
    capability: SandboxCapability, run_sandboxed: Run, workspace: Path
) -> None:
    outcome = await run_sandboxed(
        NETWORK_ON, workspace, ["sh", "-c", "ls -A /run /var/run"], capability,
        hidden_paths=host_hidden_paths({}),
    )  # fmt: skip
    assert outcome.stdout.strip() == ""
    assert outcome.stderr.count("Permission denied") == 2


@USERS
async def test_a_resolver_config_inside_a_hidden_dir_stays_readable_and_nothing_else_does(
    capability: SandboxCapability, shared_dir: Path, workspace: Path, as_nobody: bool
) -> None:
    run = _dir(shared_dir / "run")
    _dir(run / "resolve")
    _dir(run / "secret")
    (run / "resolve" / "stub.conf").write_text("nameserver 127.0.0.53\n")
    (run / "secret" / "token").write_text("s3cret")
    for path in (run / "resolve" / "stub.conf", run / "secret" / "token"):
        path.chmod(0o644)
    (shared_dir / "resolv.conf").symlink_to(run / "resolve" / "stub.conf")
    plan = plan_mounts(
        NETWORK_ON, workspace, env={}, hidden_paths=[run], reexposed=[shared_dir / "resolv.conf"]
    )
    script = f"cat {shared_dir}/resolv.conf; cat {run}/secret/token; ls {run}"
    argv = build_bwrap_argv(
        NETWORK_ON, workspace, ["sh", "-c", script], mounts=plan, seccomp_fd=None, bwrap=capability.bwrap_path
    )
    full = [*AS_NOBODY, *argv] if as_nobody else argv
    proc = await asyncio.create_subprocess_exec(
        *full, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    async with asyncio.timeout(RUN_LIMIT_S):
        out, err = await proc.communicate()
    assert out.decode() == "nameserver 127.0.0.53\n", err
    assert "Permission denied" in err.decode()  # the hidden dir cannot be listed
