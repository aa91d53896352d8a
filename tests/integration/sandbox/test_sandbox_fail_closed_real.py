"""Fail closed: when bwrap cannot start, sandboxed commands are refused and never run bare."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from subprocess import CompletedProcess

import pytest

from tether_server.errors import SandboxError
from tether_server.sandbox import SandboxCapability, SandboxPolicy, prepare, probe_sandbox

Run = Callable[..., Awaitable[CompletedProcess[str]]]


# Runs inside an outer sandbox: probe, then try to run `touch marker` in the workspace.
NESTED_DAEMON = """
import asyncio, json, subprocess, sys
from pathlib import Path
from tether_server.errors import SandboxError
from tether_server.sandbox import SandboxPolicy, prepare, probe_sandbox
cap = asyncio.run(probe_sandbox())
try:
    prepared = prepare(SandboxPolicy(kind="workspace-write"), Path(sys.argv[1]), ["touch", "marker"], cap)
    subprocess.run(prepared.argv, pass_fds=prepared.pass_fds, cwd=sys.argv[1], check=False)
    error = None
except SandboxError as exc:
    error = exc.message
print(json.dumps({"available": cap.available, "reason": cap.reason, "fix": cap.fix, "error": error}))
"""

OUTER_NO_NESTING = ["--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
OUTER_CAPLESS_ROOT = ["--cap-drop", "ALL"]


async def _nested_daemon(workspace: Path, outer_flags: list[str]) -> dict[str, object]:
    argv = [
        "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
        "--bind", str(workspace), str(workspace), *outer_flags,
        "--", sys.executable, "-c", NESTED_DAEMON, str(workspace),
    ]  # fmt: skip
    proc = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    async with asyncio.timeout(30):
        out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    result: dict[str, object] = json.loads(out.decode().strip().splitlines()[-1])
    return result


async def test_a_missing_bwrap_is_reported_with_an_install_hint_and_commands_are_refused(
    tmp_path: Path,
) -> None:
    capability = await probe_sandbox(bwrap_path=str(tmp_path / "no-such-bwrap"))
    assert not capability.available
    assert "apt-get install bubblewrap" in capability.fix
    with pytest.raises(SandboxError, match="apt-get install bubblewrap"):
        prepare(SandboxPolicy(kind="workspace-write"), tmp_path, ["touch", "marker"], capability)
    assert not (tmp_path / "marker").exists()


@pytest.mark.parametrize(
    ("outer_flags", "reason_fragment"),
    [(OUTER_NO_NESTING, "user namespaces"), (OUTER_CAPLESS_ROOT, "capability-less root")],
    ids=["userns-disabled", "capless-root"],
)
async def test_a_daemon_that_cannot_create_namespaces_refuses_and_never_runs_the_command(
    tmp_path: Path, outer_flags: list[str], reason_fragment: str
) -> None:
    result = await _nested_daemon(tmp_path, outer_flags)
    assert result["available"] is False
    assert reason_fragment in str(result["reason"])
    assert str(result["error"]).startswith("sandbox unavailable, command not run")
    assert str(result["fix"]) in str(result["error"])
    assert not (tmp_path / "marker").exists()


async def test_danger_full_access_runs_the_command_bare(
    capability: SandboxCapability, run_sandboxed: Run, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    script = f"echo bare > {outside}; grep -E '^(CapEff|Seccomp):' /proc/self/status"
    policy = SandboxPolicy(kind="danger-full-access")
    prepared = prepare(policy, tmp_path, ["sh", "-c", script], capability)
    assert prepared.argv == ["sh", "-c", script]
    outcome = await run_sandboxed(policy, tmp_path, ["sh", "-c", script], capability)
    assert outside.read_text() == "bare\n"
    assert "Seccomp:\t0" in outcome.stdout


async def test_a_setup_failure_inside_bwrap_leaves_the_command_unrun(
    capability: SandboxCapability, tmp_path: Path
) -> None:
    # A writable root that vanishes between planning and spawning makes bwrap's setup fail.
    extra = tmp_path / "vanishing"
    extra.mkdir()
    policy = SandboxPolicy(kind="workspace-write", writable_roots=(extra,))
    prepared = prepare(policy, tmp_path, ["touch", "marker"], capability, env={})
    extra.rmdir()
    proc = await asyncio.create_subprocess_exec(
        *prepared.argv, pass_fds=prepared.pass_fds, stderr=asyncio.subprocess.PIPE
    )
    try:
        async with asyncio.timeout(10):
            _, err = await proc.communicate()
        assert proc.returncode != 0
        assert prepared.setup_failed()
    finally:
        prepared.cleanup()
    assert err.decode().startswith("bwrap:")
    assert not (tmp_path / "marker").exists()


OLD_BWRAP = """#!/bin/sh
# bwrap before 0.8: no --disable-userns.
for arg in "$@"; do
  if [ "$arg" = --disable-userns ]; then echo "bwrap: Unknown option --disable-userns" >&2; exit 1; fi
done
exec {bwrap} "$@"
"""


async def test_a_bwrap_without_disable_userns_still_sandboxes_without_the_flag(
    capability: SandboxCapability, run_sandboxed: Run, workspace: Path, tmp_path: Path
) -> None:
    assert capability.disable_userns  # the real bwrap here is 0.8
    old = tmp_path / "bwrap-0.7"
    old.write_text(OLD_BWRAP.format(bwrap=capability.bwrap_path))
    old.chmod(0o755)
    older = await probe_sandbox(bwrap_path=str(old))
    assert older.available and not older.disable_userns
    outcome = await run_sandboxed(
        SandboxPolicy(kind="workspace-write", exclude_slash_tmp=True, exclude_tmpdir_env_var=True),
        workspace,
        ["sh", "-c", "echo ok > made; echo x > .git/HEAD"],
        older,
    )
    assert (workspace / "made").read_text() == "ok\n"
    assert "Read-only file system" in outcome.stderr
    assert "--disable-userns" not in outcome.args
