"""prepare(): bare for full access, refusal when the sandbox is unavailable, fds and stubs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tether_server.errors import SandboxError
from tether_server.sandbox.messages import BWRAP_MISSING
from tether_server.sandbox.policy import SandboxPolicy
from tether_server.sandbox.probe import SandboxCapability
from tether_server.sandbox.runner import prepare

AVAILABLE = SandboxCapability(available=True, bwrap_path="/usr/bin/bwrap")
MISSING = SandboxCapability.unavailable(BWRAP_MISSING)


@pytest.mark.parametrize("kind", ["danger-full-access", "external"])
def test_full_access_and_external_policies_run_the_command_unchanged(tmp_path: Path, kind: str) -> None:
    prepared = prepare(SandboxPolicy(kind=kind), tmp_path, ["ls", "-l"], MISSING)  # type: ignore[arg-type]
    assert prepared.argv == ["ls", "-l"]
    assert prepared.pass_fds == ()
    assert not prepared.setup_failed()


@pytest.mark.parametrize("kind", ["read-only", "workspace-write"])
def test_sandboxed_policies_are_refused_with_reason_and_fix_when_unavailable(
    tmp_path: Path, kind: str
) -> None:
    with pytest.raises(SandboxError) as caught:
        prepare(SandboxPolicy(kind=kind), tmp_path, ["true"], MISSING)  # type: ignore[arg-type]
    assert "not installed" in caught.value.message
    assert "apt-get install bubblewrap" in caught.value.message
    assert caught.value.data == {"reason": BWRAP_MISSING.reason, "fix": BWRAP_MISSING.fix}


def test_a_prepared_command_passes_the_seccomp_program_as_an_inherited_fd(tmp_path: Path) -> None:
    prepared = prepare(SandboxPolicy(kind="read-only"), tmp_path, ["true"], AVAILABLE, env={})
    try:
        fd, status_fd = prepared.pass_fds
        assert prepared.argv[0] == "/usr/bin/bwrap"
        assert prepared.argv[prepared.argv.index("--json-status-fd") + 1] == str(status_fd)
        assert prepared.argv[prepared.argv.index("--seccomp") + 1] == str(fd)
        assert len(os.pread(fd, 4096, 0)) % 8 == 0
    finally:
        prepared.cleanup()
    with pytest.raises(OSError):
        os.fstat(fd)


def test_the_codex_stub_exists_only_while_a_command_is_prepared(tmp_path: Path) -> None:
    policy = SandboxPolicy(kind="workspace-write", exclude_slash_tmp=True)
    first = prepare(policy, tmp_path, ["true"], AVAILABLE, env={})
    second = prepare(policy, tmp_path, ["true"], AVAILABLE, env={})
    assert (tmp_path / ".codex").is_dir()
    first.cleanup()
    assert (tmp_path / ".codex").is_dir()
    second.cleanup()
    second.cleanup()
    assert not (tmp_path / ".codex").exists()


def test_an_existing_codex_dir_is_never_removed(tmp_path: Path) -> None:
    (tmp_path / ".codex").mkdir()
    prepared = prepare(SandboxPolicy(kind="workspace-write"), tmp_path, ["true"], AVAILABLE, env={})
    prepared.cleanup()
    assert (tmp_path / ".codex").is_dir()


def test_a_symlinked_git_dir_refuses_the_command(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / ".git").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(SandboxError, match="symlink"):
        prepare(SandboxPolicy(kind="workspace-write"), tmp_path, ["true"], AVAILABLE, env={})
