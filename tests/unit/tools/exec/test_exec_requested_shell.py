"""Which `shell` the model may name for exec_command: system shells only, never its own files."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tether_server.tools.exec import default_shell
from tether_server.tools.exec.requested_shell import ShellRefusedError, resolve_requested_shell

NO_TMP = {"type": "workspaceWrite", "excludeSlashTmp": True, "excludeTmpdirEnvVar": True}
FULL_ACCESS = {"type": "dangerFullAccess"}


def _resolve(requested: Any, workspace: Path, policy: dict[str, Any] = NO_TMP, **env: str) -> str | None:
    environ = {"PATH": "/usr/bin:/bin", **env}
    return resolve_requested_shell(
        requested, workdir=workspace, sandbox_policy=policy, policy_cwd=workspace, env=environ
    )


def _script(path: Path) -> Path:
    path.write_text("#!/bin/sh\ntrue\n")
    path.chmod(0o755)
    return path


def test_no_shell_means_the_default_shell(tmp_path: Path) -> None:
    assert _resolve(None, tmp_path) is None


def test_a_system_shell_resolves_to_its_real_path(tmp_path: Path) -> None:
    assert _resolve("sh", tmp_path) in (default_shell(), os.path.realpath("/bin/sh"))
    assert _resolve("/bin/sh", tmp_path) == _resolve("sh", tmp_path)
    assert _resolve(os.path.realpath(default_shell()), tmp_path) == default_shell()


@pytest.mark.parametrize("policy", [NO_TMP, FULL_ACCESS, {"type": "readOnly"}])
def test_a_shell_named_file_in_the_workspace_is_refused_under_every_policy(
    tmp_path: Path, policy: dict[str, Any]
) -> None:
    _script(tmp_path / "bash")
    with pytest.raises(ShellRefusedError, match="where commands can write"):
        _resolve(str(tmp_path / "bash"), tmp_path, policy)
    with pytest.raises(ShellRefusedError, match="where commands can write"):
        _resolve("bash", tmp_path, policy, PATH=f"{tmp_path}:/usr/bin")


def test_a_symlink_to_a_workspace_script_is_refused_and_one_to_a_system_shell_is_not(
    tmp_path: Path,
) -> None:
    workspace, elsewhere = tmp_path / "ws", tmp_path / "elsewhere"
    workspace.mkdir()
    elsewhere.mkdir()
    (elsewhere / "bash").symlink_to(_script(workspace / "bash"))
    with pytest.raises(ShellRefusedError, match="where commands can write"):
        _resolve(str(elsewhere / "bash"), workspace)
    (workspace / "sh").symlink_to("/bin/sh")
    assert _resolve("./sh", workspace) == _resolve("/bin/sh", workspace)


@pytest.fixture
def outside_tmp() -> Iterator[Path]:
    """A directory outside /tmp (where the test dirs live), so only the policy makes it writable."""
    path = Path(tempfile.mkdtemp(prefix="tether-shell-", dir="/var/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def test_extra_writable_roots_and_tmpdir_count_as_writable(tmp_path: Path, outside_tmp: Path) -> None:
    shell = str(_script(outside_tmp / "zsh"))
    assert _resolve(shell, tmp_path) == shell  # nowhere a sandboxed command could have written it
    with pytest.raises(ShellRefusedError, match="where commands can write"):
        _resolve(shell, tmp_path, {**NO_TMP, "writableRoots": [str(outside_tmp)]})
    with pytest.raises(ShellRefusedError, match="where commands can write"):
        _resolve(shell, tmp_path, FULL_ACCESS, TMPDIR=str(outside_tmp))


@pytest.mark.parametrize(
    ("requested", "complaint"),
    [
        ("./evil.sh", "not an executable file"),
        ("/usr/bin/env", "not a known shell"),
        ("python3", "not a known shell"),
        ("no-such-shell", "not found"),
        ("", "must be the name or path"),
        (["/bin/sh"], "must be the name or path"),
    ],
)
def test_anything_else_is_refused_with_a_reason(tmp_path: Path, requested: Any, complaint: str) -> None:
    with pytest.raises(ShellRefusedError, match=complaint):
        _resolve(requested, tmp_path)
