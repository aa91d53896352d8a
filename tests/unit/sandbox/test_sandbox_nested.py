"""Nested `.git`, `.codex` and `.agents` below a writable root are planned read-only, within bounds."""

from __future__ import annotations

from pathlib import Path

from tether_server.sandbox.mounts import plan_mounts
from tether_server.sandbox.nested import MAX_DEPTH
from tether_server.sandbox.policy import SandboxPolicy

NO_TMP = SandboxPolicy(kind="workspace-write", exclude_slash_tmp=True, exclude_tmpdir_env_var=True)


def test_nested_protected_dirs_and_a_nested_gitdir_pointer_are_read_only(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    (root / ".git").mkdir()
    for sub in ("vendor/a/.git", "vendor/a/.codex", "tools/b/.agents", "deep/x/y/z/.git"):
        (root / sub).mkdir(parents=True)
    (root / "wt").mkdir()
    (root / "wt-gitdir").mkdir()
    (root / "wt" / ".git").write_text("gitdir: ../wt-gitdir\n")
    plan = plan_mounts(NO_TMP, root, env={})
    expected = {
        root / ".git",
        root / "vendor/a/.git",
        root / "vendor/a/.codex",
        root / "tools/b/.agents",
        root / "deep/x/y/z/.git",
        root / "wt/.git",
        root / "wt-gitdir",
    }
    assert set(plan.read_only_paths) == expected
    assert len(plan.read_only_paths) == len(expected)


def test_the_walk_does_not_enter_a_protected_dir(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    (root / "sub/.git/modules/m/.git").mkdir(parents=True)
    plan = plan_mounts(NO_TMP, root, env={})
    assert root / "sub/.git" in plan.read_only_paths
    assert root / "sub/.git/modules/m/.git" not in plan.read_only_paths


def test_a_symlinked_nested_git_is_protected_at_its_target_inside_a_root(tmp_path: Path) -> None:
    root = tmp_path.resolve() / "w"
    (root / "store").mkdir(parents=True)
    (root / "sub").mkdir()
    (root / "sub" / ".git").symlink_to(root / "store")
    (tmp_path / "outside").mkdir()
    (root / "other").mkdir()
    (root / "other" / ".git").symlink_to(tmp_path / "outside")
    plan = plan_mounts(NO_TMP, root, env={})
    assert root / "store" in plan.read_only_paths
    # Outside every writable root it is read-only already; no refusal, no extra mount.
    assert all(not p.is_relative_to(tmp_path / "outside") for p in plan.read_only_paths)


def test_hidden_dirs_are_not_walked_and_the_depth_is_bounded(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    (root / "secret/repo/.git").mkdir(parents=True)
    too_deep = root.joinpath(*[f"d{i}" for i in range(MAX_DEPTH)], ".git")
    too_deep.mkdir(parents=True)
    deepest = root.joinpath(*[f"d{i}" for i in range(MAX_DEPTH - 1)], ".git")
    deepest.mkdir()
    plan = plan_mounts(NO_TMP, root, env={}, hidden_paths=[root / "secret"])
    assert root / "secret/repo/.git" not in plan.read_only_paths
    assert deepest in plan.read_only_paths
    assert too_deep not in plan.read_only_paths
