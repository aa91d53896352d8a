"""docs/troubleshooting.md is generated from doctor's catalogue and kept current."""

from __future__ import annotations

from pathlib import Path

from tether_server.doctor.catalog import CHECKS, PROBLEMS, render_markdown

DOC = Path(__file__).resolve().parents[3] / "docs" / "troubleshooting.md"
REGENERATE = "regenerate with: python -m tether_server.doctor.catalog > docs/troubleshooting.md"


def test_the_troubleshooting_page_matches_the_checks() -> None:
    assert DOC.read_text() == render_markdown(), REGENERATE


def test_every_problem_belongs_to_a_listed_check() -> None:
    names = {name for name, _ in CHECKS}

    assert {problem.check for problem in PROBLEMS} <= names
