"""The nested-entries walk reuses what it read of an unchanged tree, and sees every change made
between two commands (the plan before a command and the check after it read the same roots)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tether_server.sandbox import dir_listings
from tether_server.sandbox.mounts import appeared_since, plan_mounts
from tether_server.sandbox.policy import SandboxPolicy

NO_TMP = SandboxPolicy(kind="workspace-write", exclude_slash_tmp=True, exclude_tmpdir_env_var=True)


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path.resolve() / "ws"
    for sub in ("vendor/a/.git", "vendor/b/src", "deep/x/y"):
        (root / sub).mkdir(parents=True)
    dir_listings.clear()
    yield root
    dir_listings.clear()


def _nested(root: Path) -> set[Path]:
    plan = plan_mounts(NO_TMP, root, env={})
    return set(plan.read_only_paths) - {root / ".git", root / ".codex"}


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    reads: list[str] = []
    real = os.scandir

    def counting(path: str) -> os._ScandirIterator[str]:
        reads.append(str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", counting)
    return reads


def test_an_unchanged_tree_is_not_read_again(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _nested(tree) == {tree / "vendor/a/.git"}
    reads = _count_reads(monkeypatch)
    assert _nested(tree) == {tree / "vendor/a/.git"}
    assert reads == []


def test_a_repository_made_between_two_commands_is_protected(tree: Path) -> None:
    assert _nested(tree) == {tree / "vendor/a/.git"}
    (tree / "deep/x/y/.git").mkdir()
    (tree / "vendor/b/.codex").mkdir()
    assert _nested(tree) == {tree / "vendor/a/.git", tree / "deep/x/y/.git", tree / "vendor/b/.codex"}


def test_a_directory_moved_away_and_replaced_is_read_afresh(tree: Path) -> None:
    assert _nested(tree) == {tree / "vendor/a/.git"}
    (tree / "deep").rename(tree / "old")
    (tree / "deep/x/y/.agents").mkdir(parents=True)
    (tree / "old/x/y/.git").mkdir()
    found = _nested(tree)
    assert tree / "deep/x/y/.agents" in found
    assert tree / "old/x/y/.git" in found
    # The new directories at the old paths are watched in their own right.
    (tree / "deep/x/y/.codex").mkdir()
    assert tree / "deep/x/y/.codex" in _nested(tree)


def test_a_removed_repository_is_no_longer_planned(tree: Path) -> None:
    assert _nested(tree) == {tree / "vendor/a/.git"}
    (tree / "vendor/a/.git").rmdir()
    assert _nested(tree) == set()


def test_what_a_command_created_is_reported_once_the_tree_was_read(tree: Path) -> None:
    plan = plan_mounts(NO_TMP, tree, env={})
    (tree / "vendor/b/src/.git").mkdir()
    assert appeared_since(plan) == [tree / "vendor/b/src/.git"]
    assert tree / "vendor/b/src/.git" in _nested(tree)
