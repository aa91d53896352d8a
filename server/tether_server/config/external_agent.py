"""What Claude Code's config holds that Tether can use, found and copied over as Codex 0.169.0's import does.

Three kinds, each home-scoped (from `$HOME`) or repository-scoped (from a working directory):
- MCP servers: `~/.claude.json`'s `mcpServers` (home), its `projects.<dir>.mcpServers` and the
  project's `.mcp.json` (repository) → `mcp_servers` of `$TETHER_HOME/config.toml` or of the
  project's `.codex/config.toml`;
- skills: `~/.claude/skills/<name>/SKILL.md` → `~/.agents/skills/<name>`, a project's
  `.claude/skills` → its `.agents/skills`;
- instructions: `~/.claude/CLAUDE.md` → `$TETHER_HOME/AGENTS.md`, a project's `CLAUDE.md` → its
  `AGENTS.md`.
What the target already has (a server name, a skill folder, an AGENTS.md) is neither offered nor
overwritten. Symbolic links are not followed when skills are copied.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tether_server.private_file import write_atomic

MCP, SKILLS, AGENTS_MD = "MCP_SERVER_CONFIG", "SKILLS", "AGENTS_MD"
_SERVER_NAME = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class Scope:
    """Where one scan looks and writes: home (`cwd` None) or one project."""

    cwd: Path | None
    user_home: Path
    tether_home: Path

    @property
    def config_path(self) -> Path:
        return self.tether_home / "config.toml" if self.cwd is None else self.cwd / ".codex" / "config.toml"

    @property
    def skills_source(self) -> Path:
        return (self.cwd or self.user_home) / ".claude" / "skills"

    @property
    def skills_target(self) -> Path:
        return (self.cwd or self.user_home) / ".agents" / "skills"

    @property
    def doc_source(self) -> Path:
        return self.user_home / ".claude" / "CLAUDE.md" if self.cwd is None else self.cwd / "CLAUDE.md"

    @property
    def doc_target(self) -> Path:
        return self.tether_home / "AGENTS.md" if self.cwd is None else self.cwd / "AGENTS.md"


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _table(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def foreign_servers(scope: Scope) -> dict[str, dict[str, Any]]:
    """The MCP servers Claude Code has for `scope`, by name."""
    claude = _json(scope.user_home / ".claude.json")
    if scope.cwd is None:
        found = dict(_table(claude.get("mcpServers")))
    else:
        project = _table(_table(claude.get("projects")).get(str(scope.cwd)))
        found = {
            **_table(project.get("mcpServers")),
            **_table(_json(scope.cwd / ".mcp.json").get("mcpServers")),
        }
    return {name: entry for name, entry in found.items() if isinstance(entry, dict)}


def _configured_servers(scope: Scope) -> set[str]:
    import tomlkit  # with the first import request, not with the daemon (~50 ms)

    try:
        text = scope.config_path.read_text(encoding="utf-8")
        return set(_table(tomlkit.parse(text).unwrap().get("mcp_servers")))
    except (OSError, ValueError):
        return set()


def new_servers(scope: Scope) -> list[str]:
    """Names of the foreign servers the target config does not have yet, sorted."""
    have = _configured_servers(scope)
    return sorted(name for name in foreign_servers(scope) if name not in have)


def new_skills(scope: Scope) -> list[str]:
    """Foreign skill folders (with a SKILL.md) the target has no folder for, sorted."""
    try:
        entries = list(scope.skills_source.iterdir())
    except OSError:
        return []
    fresh = []
    for entry in entries:
        usable = entry.is_dir() and not entry.is_symlink() and (entry / "SKILL.md").is_file()
        if usable and not (scope.skills_target / entry.name).exists():
            fresh.append(entry.name)
    return sorted(fresh)


def doc_to_copy(scope: Scope) -> bool:
    """Whether there is a non-empty CLAUDE.md and no AGENTS.md where it would go."""
    source = scope.doc_source
    try:
        return source.is_file() and source.stat().st_size > 0 and not scope.doc_target.exists()
    except OSError:
        return False


def server_table(name: str, entry: dict[str, Any]) -> dict[str, Any]:
    """A Claude Code server entry in Tether's (Codex's) `mcp_servers.<name>` shape.

    Raises:
        ValueError: the entry cannot be expressed (bad name, neither `command` nor `url`).
    """
    if not _SERVER_NAME.fullmatch(name):
        raise ValueError(f"MCP server name {name!r} may hold only letters, digits, '-' and '_'")
    table: dict[str, Any] = {}
    if isinstance(entry.get("command"), str):
        table["command"] = entry["command"]
        args = entry.get("args")
        if isinstance(args, list) and args:
            table["args"] = [str(a) for a in args]
        env = entry.get("env")
        if isinstance(env, dict) and env:
            table["env"] = {str(k): str(v) for k, v in env.items()}
    elif isinstance(entry.get("url"), str):
        table["url"] = entry["url"]
        headers = entry.get("headers")
        if isinstance(headers, dict) and headers:
            table["http_headers"] = {str(k): str(v) for k, v in headers.items()}
    else:
        raise ValueError(f"MCP server {name!r} has neither a command nor a url")
    return table


def add_project_servers(path: Path, tables: dict[str, dict[str, Any]]) -> None:
    """Add `tables` to a project's `.codex/config.toml` (created if missing), atomically."""
    import tomlkit

    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        doc = tomlkit.parse(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        doc = tomlkit.document()
    servers = doc.get("mcp_servers")
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        doc["mcp_servers"] = servers
    for name, table in tables.items():
        servers[name] = table
    write_atomic(path, tomlkit.dumps(doc))


def copy_skill(source: Path, target: Path) -> None:
    """Copy one skill folder, its regular files and folders only (links are left behind)."""

    def ignore(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if os.path.islink(os.path.join(folder, n))]

    shutil.copytree(source, target, symlinks=False, ignore=ignore)


def scopes(user_home: Path, tether_home: Path, include_home: bool, cwds: list[str]) -> Iterator[Scope]:
    """Home first (when asked), then each existing absolute working directory once."""
    if include_home:
        yield Scope(None, user_home, tether_home)
    seen: set[Path] = set()
    for raw in cwds:
        cwd = Path(raw)
        if cwd.is_absolute() and cwd.is_dir() and cwd not in seen:
            seen.add(cwd)
            yield Scope(cwd, user_home, tether_home)
