"""A nested repository removed between the mount plan and the command's start does not fail the
command (a shared /tmp holds other tools' short-lived repositories); the top of the cwd stays strict.
Real bwrap."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from tether_server.sandbox import SandboxCapability, SandboxPolicy, prepare

NO_TMP = SandboxPolicy(kind="workspace-write", exclude_slash_tmp=True, exclude_tmpdir_env_var=True)


async def _run(argv: list[str], pass_fds: tuple[int, ...]) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        *argv, pass_fds=pass_fds, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    async with asyncio.timeout(20):
        out, _ = await proc.communicate()
    return proc.returncode or 0, out.decode(errors="replace")


async def test_a_nested_repository_gone_before_the_command_starts_does_not_fail_it(
    tmp_path: Path, capability: SandboxCapability
) -> None:
    root = tmp_path.resolve()
    (root / ".git").mkdir()
    (root / "vendor" / "lib" / ".git").mkdir(parents=True)
    (root / "tools" / "x" / ".git").mkdir(parents=True)
    script = "touch vendor/lib/.git/planted 2>/dev/null && echo planted; touch tools/x/.git/y || echo ro"
    prepared = prepare(NO_TMP, root, ["sh", "-c", script], capability, env={})
    try:
        shutil.rmtree(root / "vendor")  # removed by someone else after the plan was made
        status, output = await _run(prepared.argv, prepared.pass_fds)
    finally:
        prepared.cleanup()
    assert status == 0, output
    assert "ro" in output.split(), "a nested repository still there is read-only"
    assert not (root / "tools" / "x" / ".git" / "y").exists()


async def test_the_top_level_git_of_the_cwd_is_still_required(
    tmp_path: Path, capability: SandboxCapability
) -> None:
    root = tmp_path.resolve()
    (root / ".git").mkdir()
    prepared = prepare(NO_TMP, root, ["true"], capability, env={})
    try:
        shutil.rmtree(root / ".git")
        status, output = await _run(prepared.argv, prepared.pass_fds)
    finally:
        prepared.cleanup()
    assert status != 0 and ".git" in output, "never run with the cwd's .git left unprotected"
