"""Mount planning: canonical roots, protected subpaths, gitdir pointers, hidden paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether_server.errors import SandboxError
from tether_server.sandbox.mounts import plan_mounts
from tether_server.sandbox.policy import SandboxPolicy

NO_TMP = SandboxPolicy(kind="workspace-write", exclude_slash_tmp=True, exclude_tmpdir_env_var=True)


def test_existing_protected_dirs_in_the_workspace_are_read_only(tmp_path: Path) -> None:
    for name in (".git", ".codex", ".agents"):
        (tmp_path / name).mkdir()
    plan = plan_mounts(NO_TMP, tmp_path, env={})
    assert plan.writable_roots == (tmp_path.resolve(),)
    assert set(plan.read_only_paths) == {tmp_path.resolve() / n for n in (".git", ".codex", ".agents")}
    assert plan.stub_paths == ()


def test_a_missing_git_or_codex_dir_in_cwd_is_planned_as_a_stub(tmp_path: Path) -> None:
    plan = plan_mounts(NO_TMP, tmp_path, env={})
    assert plan.stub_paths == (tmp_path.resolve() / ".git", tmp_path.resolve() / ".codex")
    assert plan.read_only_paths == ()


def test_a_git_pointer_file_protects_the_file_and_its_gitdir_inside_a_root(tmp_path: Path) -> None:
    real_git = tmp_path / "repo.git"
    real_git.mkdir()
    (tmp_path / ".git").write_text("gitdir: repo.git\n")
    plan = plan_mounts(NO_TMP, tmp_path, env={})
    assert tmp_path.resolve() / ".git" in plan.read_only_paths
    assert real_git.resolve() in plan.read_only_paths


def test_a_gitdir_outside_every_writable_root_needs_no_extra_bind(tmp_path: Path) -> None:
    workspace = tmp_path / "w"
    workspace.mkdir()
    (tmp_path / "elsewhere.git").mkdir()
    (workspace / ".git").write_text(f"gitdir: {tmp_path / 'elsewhere.git'}\n")
    plan = plan_mounts(NO_TMP, workspace, env={})
    assert plan.read_only_paths == (workspace.resolve() / ".git",)


def test_a_symlinked_protected_path_is_refused(tmp_path: Path) -> None:
    (tmp_path / "target").mkdir()
    (tmp_path / ".git").symlink_to(tmp_path / "target")
    with pytest.raises(SandboxError, match="symlink"):
        plan_mounts(NO_TMP, tmp_path, env={})


def test_a_missing_cwd_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SandboxError, match="does not exist"):
        plan_mounts(NO_TMP, tmp_path / "gone", env={})


def test_roots_are_canonical_deduplicated_and_outer_first(tmp_path: Path) -> None:
    inner = tmp_path / "outer" / "inner"
    inner.mkdir(parents=True)
    (tmp_path / "link").symlink_to(inner)
    policy = SandboxPolicy(
        kind="workspace-write",
        writable_roots=(tmp_path / "outer", tmp_path / "missing"),
        exclude_slash_tmp=True,
    )
    plan = plan_mounts(policy, tmp_path / "link", env={"TMPDIR": str(inner)})
    assert plan.writable_roots == ((tmp_path / "outer").resolve(), inner.resolve())


def test_read_only_policy_plans_no_writable_mounts(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    plan = plan_mounts(SandboxPolicy(kind="read-only"), tmp_path, env={})
    assert (plan.writable_roots, plan.read_only_paths, plan.stub_paths) == ((), (), ())


def test_hidden_paths_are_split_into_dirs_and_files_and_missing_ones_dropped(tmp_path: Path) -> None:
    (tmp_path / "sock").mkdir()
    (tmp_path / "auth.json").write_text("{}")
    plan = plan_mounts(
        SandboxPolicy(kind="read-only"),
        tmp_path,
        env={},
        hidden_paths=[tmp_path / "sock", tmp_path / "auth.json", tmp_path / "nope"],
    )
    assert plan.hidden_dirs == ((tmp_path / "sock").resolve(),)
    assert plan.hidden_files == ((tmp_path / "auth.json").resolve(),)


def test_the_workdir_is_where_the_command_starts_but_never_a_writable_root(tmp_path: Path) -> None:
    workspace, elsewhere = tmp_path / "w", tmp_path / "elsewhere"
    workspace.mkdir()
    elsewhere.mkdir()
    plan = plan_mounts(NO_TMP, workspace, env={}, workdir=elsewhere)
    assert plan.workdir == elsewhere.resolve()
    assert plan.writable_roots == (workspace.resolve(),)
    assert all(elsewhere.resolve() != p for p in plan.stub_paths)


@pytest.mark.parametrize("root", ["/", "/etc", "/usr", "/var", "/proc", "/proc/self", "/sys/fs", "/dev/shm"])
def test_slash_and_system_dirs_never_become_writable_roots(root: str) -> None:
    policy = SandboxPolicy(kind="workspace-write", writable_roots=(Path(root),), exclude_slash_tmp=True)
    plan = plan_mounts(policy, Path(root), env={})
    assert plan.writable_roots == ()
    assert plan.stub_paths == ()  # nothing is created in a system dir either


def test_a_root_inside_a_hidden_dir_is_dropped_and_a_cwd_there_is_refused(tmp_path: Path) -> None:
    hidden = tmp_path / "run"
    (hidden / "tmp").mkdir(parents=True)
    workspace = tmp_path / "w"
    workspace.mkdir()
    policy = SandboxPolicy(kind="workspace-write", exclude_slash_tmp=True)
    plan = plan_mounts(policy, workspace, env={"TMPDIR": str(hidden / "tmp")}, hidden_paths=[hidden])
    assert plan.writable_roots == (workspace.resolve(),)
    with pytest.raises(SandboxError, match="hidden"):
        plan_mounts(policy, hidden / "tmp", env={}, hidden_paths=[hidden])
    with pytest.raises(SandboxError, match="hidden"):
        plan_mounts(policy, workspace, env={}, hidden_paths=[hidden], workdir=hidden)


def test_nested_hidden_paths_fold_into_the_outermost(tmp_path: Path) -> None:
    (tmp_path / "run" / "user").mkdir(parents=True)
    plan = plan_mounts(
        SandboxPolicy(kind="read-only"),
        tmp_path,
        env={},
        hidden_paths=[tmp_path / "run" / "user", tmp_path / "run"],
    )
    assert plan.hidden_dirs == ((tmp_path / "run").resolve(),)


def test_a_resolver_file_pointing_into_a_hidden_dir_is_reexposed(tmp_path: Path) -> None:
    (tmp_path / "run" / "resolve").mkdir(parents=True)
    (tmp_path / "run" / "resolve" / "stub.conf").write_text("nameserver 127.0.0.53\n")
    (tmp_path / "resolv.conf").symlink_to(tmp_path / "run" / "resolve" / "stub.conf")
    (tmp_path / "plain.conf").write_text("nameserver 10.0.0.1\n")
    plan = plan_mounts(
        SandboxPolicy(kind="read-only"),
        tmp_path,
        env={},
        hidden_paths=[tmp_path / "run"],
        reexposed=[tmp_path / "resolv.conf", tmp_path / "plain.conf", tmp_path / "missing.conf"],
    )
    assert plan.reexposed_files == ((tmp_path / "run" / "resolve" / "stub.conf").resolve(),)
