"""The skills section of a thread's first context: names, descriptions and paths within a budget.

Only the front matter goes into the context; the model reads a skill's body (its `SKILL.md`)
with a command when it decides to use it. The section is capped at 2% of the context window
(counted as 4 bytes a token); skills past the cap are listed by count so the model knows
where to look.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tether_server.config.skills import Skill, SkillRoot, discover
from tether_server.config.skills_config import read_selectors

BUDGET_SHARE = 0.02
BYTES_PER_TOKEN = 4


def budget_bytes(context_window: int) -> int:
    return int(context_window * BUDGET_SHARE * BYTES_PER_TOKEN)


def skills_section(
    cwd: Path,
    home: Path | None,
    context_window: int,
    private: Sequence[Path] = (),
    added: Sequence[SkillRoot] = (),
) -> str:
    """The enabled skills' text for a thread in `cwd`, or "" when there are none (blocking: reads
    files). `added`: the roots added at run time; disabled skills (config.toml) are left out."""
    if home is None:
        return ""
    selectors = read_selectors(home / "config.toml")
    scan = discover(cwd, home, private=private, added=added, selectors=selectors)
    skills = [skill for skill in scan.skills if skill.enabled]
    return render(skills, budget_bytes(context_window)) if skills else ""


def render(skills: list[Skill], budget: int) -> str:
    """The section for `skills`, its skill lines cut to fit `budget` bytes."""
    head = (
        "<skills_instructions>\n## Skills\nA skill is a folder of instructions for one kind of task, "
        "described by its SKILL.md. Available skills (name: description (file: path)):"
    )
    tail = (
        "Use a skill when the user names it (`$name`) or the task clearly matches its description: "
        "read its SKILL.md first (only as much as you need) and follow it.\n</skills_instructions>"
    )
    used = len(head.encode()) + len(tail.encode()) + 2
    lines: list[str] = []
    for index, skill in enumerate(skills):
        line = f"- {skill.name}: {skill.description} (file: {skill.path})"
        size = len(line.encode()) + 1
        if used + size > budget:
            rest = len(skills) - index
            lines.append(f"- … {rest} more skill(s) not listed here (SKILL.md files under .agents/skills)")
            break
        lines.append(line)
        used += size
    return "\n".join([head, *lines, tail])
