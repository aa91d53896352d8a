"""Skills: `SKILL.md` files found under `$TETHER_HOME/skills` and a repository's `.agents/skills`.

Layout as Codex: one directory per skill holding `SKILL.md`, whose YAML front matter (between
`---` lines) gives `name`, `description` and optionally `metadata.short-description`. Repository
skills are looked up in `.agents/skills` of the working directory and of each parent up to the
project root (the nearest folder holding a `.git`); user skills in `~/.agents/skills` and
`$TETHER_HOME/skills` (Codex reads `~/.agents/skills` and `$CODEX_HOME/skills`). Only
the front matter is read here: bodies are read by the model on demand, by path.

The model and any cloned repository write `.agents/skills`, so a `SKILL.md` is read by the
`safe_read` rules: no symlink, regular files only, really inside the project (a user skill: not in
the daemon's private or hidden paths), its first `MAX_SKILL_FILE_BYTES` only. Discovery blocks:
the daemon runs it off the event loop.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from tether_server import safe_read

SkillScope = Literal["repo", "user"]

MAX_SKILL_FILE_BYTES = 256 * 1024
NO_FRONTMATTER = "missing YAML frontmatter delimited by ---"


@dataclass(frozen=True)
class Skill:
    """One skill: its `name`, `description`, the `SKILL.md` path and where it was found."""

    name: str
    description: str
    path: Path
    scope: SkillScope
    short_description: str | None = None


@dataclass
class SkillScan:
    """The skills visible from one directory, and the files that could not be read."""

    skills: list[Skill] = field(default_factory=list)
    errors: list[tuple[Path, str]] = field(default_factory=list)


@dataclass(frozen=True)
class _Where:
    """Where a skills folder was found: the folder its files must stay in, and what is private."""

    root: Path
    contained: bool
    private: Sequence[Path]


def discover(cwd: Path, home: Path, user_home: Path | None = None, private: Sequence[Path] = ()) -> SkillScan:
    """The skills seen from `cwd`: repository skills (outermost folder first), then user skills.

    `home` is `$TETHER_HOME`; `user_home` the user's home directory (default `~`); `private` the
    daemon's private and hidden paths, never read through a skills folder.
    """
    scan = SkillScan()
    project = _project_top(cwd)
    for root in _repo_skill_roots(cwd):
        _scan_root(root, "repo", scan, _Where(project, True, private))
    for root in ((user_home or Path.home()) / ".agents" / "skills", home / "skills"):
        _scan_root(root, "user", scan, _Where(root, False, private))
    return scan


def _project_top(cwd: Path) -> Path:
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd


def _repo_skill_roots(cwd: Path) -> list[Path]:
    chain: list[Path] = []
    for folder in (cwd, *cwd.parents):
        chain.append(folder)
        if (folder / ".git").exists():
            break
    else:
        chain = [cwd]  # outside a repository only the working directory's own skills count
    roots = [folder / ".agents" / "skills" for folder in reversed(chain)]
    return [root for root in roots if root.is_dir()]


def _scan_root(root: Path, scope: SkillScope, scan: SkillScan, where: _Where) -> None:
    try:
        entries = sorted(p for p in root.iterdir() if not p.name.startswith("."))
    except OSError:
        return
    found: list[Skill] = []
    for entry in entries:
        path = entry / "SKILL.md"
        if not os.path.lexists(path):
            continue
        try:
            found.append(
                parse_skill(path, scope, where.root, contained=where.contained, private=where.private)
            )
        except ValueError as exc:
            scan.errors.append((path, str(exc)))
    scan.skills.extend(sorted(found, key=lambda s: s.name))


def parse_skill(
    path: Path, scope: SkillScope, root: Path, *, contained: bool = True, private: Sequence[Path] = ()
) -> Skill:
    """Read one `SKILL.md`'s front matter, found under `root` (see `safe_read.read_prefix`).

    Raises:
        ValueError: not readable, no front matter, or no `name`/`description` in it (the message
            says which, never what the file holds).
    """
    try:
        data = safe_read.read_prefix(
            path, MAX_SKILL_FILE_BYTES, root=root, private=private, contained=contained
        )
    except safe_read.Refused as exc:
        raise ValueError(f"not read: {exc}") from None
    except OSError as exc:
        raise ValueError(f"cannot read: {exc.strerror}") from None
    text = data.decode("utf-8", errors="replace")
    fields = _front_matter(text)
    name, description = fields.get("name", "").strip(), fields.get("description", "").strip()
    if not name:
        raise ValueError("missing field `name`")
    if not description:
        raise ValueError("missing field `description`")
    short = fields.get("metadata.short-description") or None
    return Skill(name, description, path, scope, short)


def _front_matter(text: str) -> dict[str, str]:
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise ValueError(NO_FRONTMATTER)
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise ValueError(NO_FRONTMATTER) from None
    # A deliberately small YAML subset: `key: value` pairs and one level of nested mapping,
    # which is all SKILL.md front matter uses.
    fields: dict[str, str] = {}
    parent: str | None = None
    for line in lines[1:end]:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, value = line.strip().partition(":")
        if not sep:
            continue
        if line[:1] in (" ", "\t") and parent is not None:
            fields[f"{parent}.{key.strip()}"] = _scalar(value)
            continue
        parent = key.strip() if not value.strip() else None
        fields[key.strip()] = _scalar(value)
    return fields


def _scalar(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in ("'", '"'):
        return value[1:-1]
    return value
