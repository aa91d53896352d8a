"""Which patch targets the boundary lets through, escalates or refuses, on real directory trees.

Every attack here wrote its file with no prompt before patches were held to the sandbox's
boundary (the daemon applied any path the lexical root check let through).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tether_server.tools.apply_patch import (
    CheckedPatch,
    PatchApplyError,
    PatchBoundary,
    PatchRefusedError,
    parse_patch,
    plan_patch,
)
from tether_server.tools.apply_patch.boundary import (
    HIDDEN_REASON,
    OUTSIDE_REASON,
    PROTECTED_REASON,
    SYMLINK_REASON,
)

WORKSPACE_WRITE: dict[str, Any] = {
    "type": "workspaceWrite",
    "excludeSlashTmp": True,
    "excludeTmpdirEnvVar": True,
}


def patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"])


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    (path / ".git").mkdir(parents=True)
    (path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (path / "main.py").write_text("old\n")
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "tether-home"
    (path / "rules").mkdir(parents=True)
    return path


def boundary(ws: Path, home: Path, policy: dict[str, Any] | None = None) -> PatchBoundary:
    return PatchBoundary.for_turn(policy or WORKSPACE_WRITE, ws, {}, [home])


def check(text: str, ws: Path, home: Path, policy: dict[str, Any] | None = None) -> CheckedPatch:
    hunks = parse_patch(text)
    fence = boundary(ws, home, policy)
    fence.check_private(hunks, ws)
    return fence.check(plan_patch(hunks, ws, None))


def reasons(checked: CheckedPatch) -> list[str]:
    return [e.reason for e in checked.escalations]


def test_a_plain_workspace_patch_needs_no_approval_and_is_written(ws: Path, home: Path) -> None:
    checked = check(
        patch("*** Add File: src/new.py", "+x", "*** Update File: main.py", "@@", "-old", "+new"), ws, home
    )
    assert checked.escalations == ()
    checked.apply()
    assert (ws / "src/new.py").read_text() == "x\n"
    assert (ws / "main.py").read_text() == "new\n"


def test_adding_git_config_is_an_escalation(ws: Path, home: Path) -> None:
    checked = check(
        patch("*** Add File: .git/config", "+[core]", "+\tfsmonitor = touch /tmp/pwned"), ws, home
    )
    assert reasons(checked) == [PROTECTED_REASON]


@pytest.mark.parametrize("name", [".git", ".codex", ".agents"])
def test_protected_names_are_escalations_even_when_missing_or_nested(ws: Path, home: Path, name: str) -> None:
    assert reasons(check(patch(f"*** Add File: {name}/x", "+x"), ws, home)) == [PROTECTED_REASON]
    nested = patch(f"*** Add File: vendor/lib/{name}/hooks/post-checkout", "+x")
    assert reasons(check(nested, ws, home)) == [PROTECTED_REASON]


def test_deleting_git_head_is_an_escalation(ws: Path, home: Path) -> None:
    assert reasons(check(patch("*** Delete File: .git/HEAD"), ws, home)) == [PROTECTED_REASON]


def test_moves_into_and_out_of_protected_paths_are_escalations(ws: Path, home: Path) -> None:
    into = patch("*** Update File: main.py", "*** Move to: .git/hooks/pre-commit", "@@", "-old", "+new")
    assert [e.path for e in check(into, ws, home).escalations] == [ws / ".git/hooks/pre-commit"]
    out = patch("*** Update File: .git/HEAD", "*** Move to: head.txt", "@@", "-ref: refs/heads/main", "+x")
    assert [e.path for e in check(out, ws, home).escalations] == [ws / ".git/HEAD"]


def test_the_gitdir_a_git_file_names_is_protected(tmp_path: Path, home: Path) -> None:
    ws = tmp_path / "wt"
    gitdir = ws / "meta" / "worktree-git"
    gitdir.mkdir(parents=True)
    (ws / ".git").write_text(f"gitdir: {gitdir}\n")
    checked = check(patch("*** Add File: meta/worktree-git/config", "+x"), ws, home)
    assert reasons(checked) == [PROTECTED_REASON]


def test_a_symlink_leading_out_of_the_workspace_is_an_escalation(
    ws: Path, home: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws / "link").symlink_to(outside)
    assert reasons(check(patch("*** Add File: link/evil.txt", "+x"), ws, home)) == [SYMLINK_REASON]


def test_a_symlink_to_git_inside_the_workspace_is_an_escalation(ws: Path, home: Path) -> None:
    (ws / "innocent").symlink_to(ws / ".git")
    assert reasons(check(patch("*** Add File: innocent/config", "+x"), ws, home)) == [PROTECTED_REASON]
    (ws / "file-link").symlink_to(ws / ".git" / "HEAD")
    update = patch("*** Update File: file-link", "@@", "-ref: refs/heads/main", "+x")
    assert reasons(check(update, ws, home)) == [PROTECTED_REASON]


def test_a_symlink_staying_inside_the_workspace_is_followed(ws: Path, home: Path) -> None:
    (ws / "src").mkdir()
    (ws / "alias").symlink_to(ws / "src")
    checked = check(patch("*** Add File: alias/a.py", "+x"), ws, home)
    assert checked.escalations == ()
    checked.apply()
    assert (ws / "src/a.py").read_text() == "x\n"


def test_deleting_a_symlink_removes_the_link_not_its_target(ws: Path, home: Path, tmp_path: Path) -> None:
    target = tmp_path / "outside.txt"
    target.write_text("keep\n")
    (ws / "link.txt").symlink_to(target)
    checked = check(patch("*** Delete File: link.txt"), ws, home)
    assert checked.escalations == ()
    checked.apply()
    assert not (ws / "link.txt").is_symlink()
    assert target.read_text() == "keep\n"


@pytest.mark.parametrize("spelled", ["../escape.txt", "sub/../../escape.txt", "ABS"])
def test_traversal_and_absolute_paths_outside_are_escalations(
    ws: Path, home: Path, tmp_path: Path, spelled: str
) -> None:
    path = str(tmp_path / "escape.txt") if spelled == "ABS" else spelled
    assert reasons(check(patch(f"*** Add File: {path}", "+x"), ws, home)) == [OUTSIDE_REASON]


def test_a_read_only_sandbox_escalates_everything(ws: Path, home: Path) -> None:
    checked = check(patch("*** Add File: a.txt", "+x"), ws, home, {"type": "readOnly"})
    assert reasons(checked) == [OUTSIDE_REASON]


@pytest.mark.parametrize("policy", [WORKSPACE_WRITE, {"type": "dangerFullAccess"}])
def test_the_daemon_home_is_refused_before_anything_is_read(
    ws: Path, home: Path, policy: dict[str, Any]
) -> None:
    rules = home / "rules" / "default.rules"
    text = patch(f"*** Add File: {rules}", '+prefix_rule(pattern=["bash"], decision="allow")')
    with pytest.raises(PatchRefusedError, match="never written"):
        check(text, ws, home, policy)
    (ws / "to-home").symlink_to(home)
    with pytest.raises(PatchRefusedError):
        check(patch("*** Add File: to-home/rules/x.rules", "+x"), ws, home, policy)
    moved = patch("*** Update File: main.py", f"*** Move to: {home}/config.toml", "@@", "-old", "+new")
    with pytest.raises(PatchRefusedError):
        check(moved, ws, home, policy)
    assert sorted(os.listdir(home)) == ["rules"] and os.listdir(home / "rules") == []


def test_the_home_is_refused_even_inside_a_writable_root(tmp_path: Path) -> None:
    """Under the default workspace-write, /tmp is a writable root and may hold the home."""
    ws = tmp_path / "ws"
    ws.mkdir()
    home = ws / ".tether"
    home.mkdir()
    fence = PatchBoundary.for_turn({"type": "workspaceWrite"}, ws, {}, [home])
    with pytest.raises(PatchRefusedError):
        fence.check_private(parse_patch(patch("*** Add File: .tether/rules/x.rules", "+x")), ws)


def test_full_access_writes_anywhere_but_still_walks_without_following_swaps(ws: Path, home: Path) -> None:
    checked = check(patch("*** Add File: .git/config", "+x"), ws, home, {"type": "dangerFullAccess"})
    assert checked.escalations == ()
    checked.apply()
    assert (ws / ".git/config").read_text() == "x\n"


def test_an_approved_escalation_writes_the_protected_path(ws: Path, home: Path) -> None:
    checked = check(patch("*** Delete File: .git/HEAD"), ws, home)
    assert checked.escalations
    checked.apply()  # the caller only gets here once the approval policy said yes
    assert not (ws / ".git/HEAD").exists()


def test_a_protected_directory_is_refused_by_identity_when_not_approved(ws: Path, home: Path) -> None:
    """A rename that brings `.git` in under an allowed name between check and write is caught."""
    checked = check(patch("*** Add File: vendor/config", "+x"), ws, home)
    assert checked.escalations == ()
    (ws / ".git").rename(ws / "vendor")
    with pytest.raises(PatchApplyError, match="protected"):
        checked.apply()
    assert not (ws / "vendor/config").exists()


def test_a_hidden_credential_store_inside_the_workspace_needs_approval(ws: Path, home: Path) -> None:
    """A workspace that holds the user's `.ssh` (cwd = $HOME): hidden from commands, so a patch asks."""
    (ws / ".ssh").mkdir()
    fence = PatchBoundary.for_turn(WORKSPACE_WRITE, ws, {}, [home], [ws / ".ssh"])
    text = patch("*** Add File: .ssh/authorized_keys", "+ssh-ed25519 AAAA attacker")
    checked = fence.check(plan_patch(parse_patch(text), ws, None))
    assert reasons(checked) == [HIDDEN_REASON]
    full = PatchBoundary.for_turn({"type": "dangerFullAccess"}, ws, {}, [home], [ws / ".ssh"])
    assert full.check(plan_patch(parse_patch(text), ws, None)).escalations == ()
