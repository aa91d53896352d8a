"""Skill discovery from SKILL.md front matter, and the budgeted skills section of the context."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether_server.config.skills import NO_FRONTMATTER, discover
from tether_server.core.context import initial_context
from tether_server.core.settings import TurnSettings, sandbox_policy_for_mode
from tether_server.core.skills_context import budget_bytes, render


def _skill(root: Path, name: str, description: str, body: str = "Do the thing.\n", extra: str = "") -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    path = folder / "SKILL.md"
    path.write_text(f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n{body}")
    return path


def _repo(tmp_path: Path) -> tuple[Path, Path, Path]:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    deep = repo / "pkg" / "sub"
    deep.mkdir(parents=True)
    home = tmp_path / "home"
    home.mkdir()
    return repo, deep, home


def test_repo_skills_of_the_root_down_to_cwd_then_user_then_system_skills(tmp_path: Path) -> None:
    repo, deep, home = _repo(tmp_path)
    _skill(repo / ".agents" / "skills", "release", "Cut a release.")
    _skill(repo / "pkg" / ".agents" / "skills", "pkg-tests", "Run the package tests.")
    _skill(tmp_path / ".agents" / "skills", "outside", "Above the repository root: not seen.")
    _skill(home / "skills", "mine", '"Quoted: with a colon"', extra="metadata:\n  short-description: Mine\n")
    _skill(tmp_path / "user" / ".agents" / "skills", "everywhere", "From ~/.agents/skills.")
    scan = discover(deep, home, tmp_path / "user")
    # As Codex orders them: by scope (repo, user, system), then by name.
    assert [(s.name, s.scope) for s in scan.skills] == [
        ("pkg-tests", "repo"),
        ("release", "repo"),
        ("everywhere", "user"),
        ("mine", "user"),
        ("create-skill", "system"),
        ("install-skill", "system"),
        ("write-agents-md", "system"),
    ]
    mine = scan.skills[3]
    assert mine.description == "Quoted: with a colon" and mine.short_description == "Mine"
    assert mine.path == home / "skills" / "mine" / "SKILL.md"
    assert scan.errors == []


def test_a_bad_skill_file_is_reported_and_the_others_still_load(tmp_path: Path) -> None:
    repo, _deep, home = _repo(tmp_path)
    root = home / "skills"
    (root / "bare").mkdir(parents=True)
    (root / "bare" / "SKILL.md").write_text("no front matter\n")
    (root / "nameless").mkdir()
    (root / "nameless" / "SKILL.md").write_text("---\ndescription: x\n---\n")
    _skill(root, "good", "Fine.")
    scan = discover(repo, home, tmp_path / "user")
    assert [s.name for s in scan.skills if s.scope != "system"] == ["good"]
    assert sorted((p.parent.name, msg) for p, msg in scan.errors) == [
        ("bare", NO_FRONTMATTER),
        ("nameless", "missing field `name`"),
    ]


def _settings(cwd: Path) -> TurnSettings:
    return TurnSettings(
        cwd=str(cwd),
        model="m",
        model_provider="p",
        approval_policy="on-request",
        approvals_reviewer="user",
        sandbox_policy=sandbox_policy_for_mode("read-only"),
    )


def test_descriptions_and_paths_reach_the_model_but_bodies_do_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    repo, _deep, home = _repo(tmp_path)
    path = _skill(repo / ".agents" / "skills", "deploy", "Deploy the app.", body="SECRET STEPS\n")
    developer = initial_context(_settings(repo), home, 32 * 1024)[0]
    text = "\n".join(part["text"] for part in developer["content"])
    assert f"- deploy: Deploy the app. (file: {path})" in text
    assert "SECRET STEPS" not in text


def test_the_section_stays_within_two_percent_of_the_context_window(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    repo, _deep, home = _repo(tmp_path)
    root = repo / ".agents" / "skills"
    for i in range(200):
        _skill(root, f"skill-{i:03}", "word " * 40)
    window = 20_000
    budget = budget_bytes(window)
    assert budget == 1600
    text = render(discover(repo, home, tmp_path / "user").skills, budget)
    assert len(text.encode()) <= budget + 100  # the "more skills" line may pass the cap slightly
    assert "- skill-000:" in text
    assert "more skill(s) not listed" in text
    developer = initial_context(_settings(repo), home, 32 * 1024, window)[0]
    section = next(p["text"] for p in developer["content"] if "<skills_instructions>" in p["text"])
    assert section == text
