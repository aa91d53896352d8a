"""Skills: `SKILL.md` files found in skill roots, folders holding one folder per skill.

Layout as Codex: one directory per skill holding `SKILL.md`, whose YAML front matter (between
`---` lines) gives `name`, `description` and optionally `metadata.short-description`. The roots a
working directory sees (`skill_roots`), in Codex's order of scopes:

- `repo`: `.agents/skills` of the working directory and of each parent up to the project root
  (the nearest folder holding a `.git`);
- `user`: `~/.agents/skills`, `$TETHER_HOME/skills` (Codex reads `~/.agents/skills` and
  `$CODEX_HOME/skills`), and the roots added at run time (`SkillRoots`: `skills/extraRoots/set`;
  plugins add theirs there too);
- `system`: the skills shipped inside the package (`tether_server/system_skills`).

Only the front matter is read here: bodies are read by the model on demand, by path.

The model and any cloned repository write `.agents/skills`, so a `SKILL.md` is read by the
`safe_read` rules: no symlink, regular files only, really inside the project (a user skill: not in
the daemon's private or hidden paths), its first `MAX_SKILL_FILE_BYTES` only. Discovery blocks:
the daemon runs it off the event loop.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from tether_server import safe_read
from tether_server.config.skills_config import Selector, is_enabled

SkillScope = Literal["repo", "user", "system", "admin"]

MAX_SKILL_FILE_BYTES = 256 * 1024
NO_FRONTMATTER = "missing YAML frontmatter delimited by ---"
SYSTEM_SKILLS = Path(__file__).resolve().parent.parent / "system_skills"
"""Tether's own skills, shipped as package data and listed with scope `system`."""

_SCOPE_RANK = {"repo": 0, "user": 1, "system": 2, "admin": 3}


@dataclass(frozen=True)
class Skill:
    """One skill: its `name`, `description`, the `SKILL.md` path and where it was found."""

    name: str
    description: str
    path: Path
    scope: SkillScope
    short_description: str | None = None
    enabled: bool = True
    plugin_id: str | None = None


@dataclass
class SkillScan:
    """The skills visible from one directory, and the files that could not be read."""

    skills: list[Skill] = field(default_factory=list)
    errors: list[tuple[Path, str]] = field(default_factory=list)


@dataclass(frozen=True)
class SkillRoot:
    """A folder of skill folders.

    `confine`: the folder a skill's files must really be inside (a repository's skills stay in
    the project); None: anywhere but the daemon's private paths (a user's own folders).
    `plugin_id`: the plugin that contributed the root, reported with each of its skills.
    """

    path: Path
    scope: SkillScope
    confine: Path | None = None
    plugin_id: str | None = None


class SkillRoots:
    """The roots added while the daemon runs, by source: `extra` is `skills/extraRoots/set`'s.

    One object shared by `skills/list` and the threads' context, so both see the same roots.
    """

    def __init__(self) -> None:
        self._by_source: dict[str, tuple[SkillRoot, ...]] = {}

    def set(self, source: str, roots: Sequence[SkillRoot]) -> None:
        """Replace the roots of `source`."""
        self._by_source[source] = tuple(roots)

    def roots(self) -> tuple[SkillRoot, ...]:
        """Every added root, in the order their sources were first set."""
        return tuple(root for roots in self._by_source.values() for root in roots)


def skill_roots(
    cwd: Path, home: Path, user_home: Path | None = None, added: Sequence[SkillRoot] = ()
) -> list[SkillRoot]:
    """Every root `cwd` sees: repository roots (outermost first), user roots, added, system."""
    project = _project_top(cwd)
    roots = [SkillRoot(path, "repo", confine=project) for path in repo_skill_roots(cwd)]
    roots += [SkillRoot(path, "user") for path in user_roots(home, user_home)]
    roots += list(added)
    roots.append(SkillRoot(SYSTEM_SKILLS, "system", confine=SYSTEM_SKILLS))
    return roots


def user_roots(home: Path, user_home: Path | None = None) -> list[Path]:
    """The user's own skill folders."""
    return [(user_home or Path.home()) / ".agents" / "skills", home / "skills"]


def discover(
    cwd: Path,
    home: Path,
    user_home: Path | None = None,
    private: Sequence[Path] = (),
    added: Sequence[SkillRoot] = (),
    selectors: Sequence[Selector] = (),
) -> SkillScan:
    """The skills seen from `cwd`, by scope then name, each marked enabled or not by `selectors`.

    `home` is `$TETHER_HOME`; `user_home` the user's home directory (default `~`); `private` the
    daemon's private and hidden paths, never read through a skills folder; `added` the roots
    added at run time (`SkillRoots.roots()`); `selectors` the `[[skills.config]]` entries.
    """
    scan = SkillScan()
    found: list[Skill] = []
    for root in skill_roots(cwd, home, user_home, added):
        found += _scan_root(root, scan, private)
    found.sort(key=lambda s: (_SCOPE_RANK[s.scope], s.name, str(s.path)))
    scan.skills = [replace(s, enabled=is_enabled(s.name, s.path, selectors)) for s in found]
    return scan


def _project_top(cwd: Path) -> Path:
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd


def repo_skill_roots(cwd: Path) -> list[Path]:
    """The existing `.agents/skills` folders of `cwd`'s repository (outermost first)."""
    chain: list[Path] = []
    for folder in (cwd, *cwd.parents):
        chain.append(folder)
        if (folder / ".git").exists():
            break
    else:
        chain = [cwd]  # outside a repository only the working directory's own skills count
    roots = [folder / ".agents" / "skills" for folder in reversed(chain)]
    return [root for root in roots if root.is_dir()]


def _scan_root(root: SkillRoot, scan: SkillScan, private: Sequence[Path]) -> list[Skill]:
    try:
        # Dot folders are not skills (`$TETHER_HOME/skills/.system` is Codex's own system folder).
        entries = sorted(p for p in root.path.iterdir() if not p.name.startswith("."))
    except OSError:
        return []
    found: list[Skill] = []
    within = root.confine if root.confine is not None else root.path
    for entry in entries:
        path = entry / "SKILL.md"
        if not os.path.lexists(path):
            continue
        try:
            skill = parse_skill(path, root.scope, within, contained=root.confine is not None, private=private)
        except ValueError as exc:
            scan.errors.append((path, str(exc)))
            continue
        if root.plugin_id is not None:
            # A plugin's skills are named `<plugin>:<skill>`, as Codex names them.
            skill = replace(skill, name=f"{root.plugin_id.partition('@')[0]}:{skill.name}")
        found.append(replace(skill, plugin_id=root.plugin_id))
    return found


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
