"""externalAgentConfig/*: a sample Claude Code setup in a temporary HOME, detected and imported.

Observed on Codex 0.169.0 (HOME holding `.claude.json` with `mcpServers` and a project's
`mcpServers`, `.claude/CLAUDE.md`, `.claude/skills/greet`; a git project with `CLAUDE.md`,
`.mcp.json`, `.claude/skills/lint`):
- detect `{}`: no items. `includeHome`: MCP_SERVER_CONFIG "Migrate MCP servers from <HOME> into
  <home>/config.toml" (details.mcpServers by name, sorted), SKILLS "Migrate skills from
  <HOME>/.claude/skills to <HOME>/.agents/skills", AGENTS_MD "Migrate <HOME>/.claude/CLAUDE.md to
  <home>/AGENTS.md" (details null), `cwd` null; with `cwds`: the same per project, `cwd` set, MCP
  servers from `.claude.json`'s project and `.mcp.json` into `<project>/.codex/config.toml`;
  a missing cwd adds nothing. `connectors: []`.
- import: `{importId}` first, then one import/progress per item (its type's result alone), then
  import/completed with every result by type; servers written as `[mcp_servers.<name>]` with
  `command`/`args`/`env` or `url`/`http_headers`; skill folders copied; CLAUDE.md copied to AGENTS.md.
  Successes: `{itemType, cwd, source, target, title: null}` (source/target the server or skill name,
  the file paths for AGENTS_MD). After the import, detect offers none of these again.
- readHistories: newest first, `{importId, providerId, completedAtMs, successes, failures}`; an
  import with no items records nothing and sends nothing; one whose items found nothing records an
  empty entry; recordHistory stores the results given (flattened) and answers a new importId.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from tests.conftest import StartApp

SKILL = "---\nname: {0}\ndescription: {0} it\n---\nDo {0}.\n"


def _claude_setup(user_home: Path, project: Path) -> None:
    (user_home / ".claude" / "skills" / "greet").mkdir(parents=True)
    (user_home / ".claude" / "skills" / "greet" / "SKILL.md").write_text(SKILL.format("greet"))
    # A link in a skill folder could carry any file the daemon can read into the user's skills.
    (user_home / ".claude" / "skills" / "greet" / "notes.md").symlink_to("/etc/hostname")
    (user_home / ".claude" / "CLAUDE.md").write_text("# Home rules\nUse tabs.\n")
    (user_home / ".claude.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "files": {
                        "type": "stdio",
                        "command": "npx",
                        "args": ["-y", "srv"],
                        "env": {"TOKEN": "t"},
                    },
                    "remote": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"X-A": "b"}},
                },
                "projects": {
                    str(project): {"mcpServers": {"proj": {"command": "python3", "args": ["-m", "srv"]}}}
                },
            }
        )
    )
    (project / ".claude" / "skills" / "lint").mkdir(parents=True)
    (project / ".claude" / "skills" / "lint" / "SKILL.md").write_text(SKILL.format("lint"))
    (project / "CLAUDE.md").write_text("# Repo rules\nRun tests.\n")
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"repo-srv": {"command": "node", "args": ["s.js"]}}})
    )


def _details(**named: list[str]) -> dict[str, Any]:
    lists: dict[str, Any] = {
        k: [] for k in ("plugins", "skills", "sessions", "mcpServers", "hooks", "subagents", "commands")
    }
    lists.update({k: [{"name": n} for n in v] for k, v in named.items()})
    return lists


def _ok(kind: str, cwd: str | None, source: str, target: str) -> dict[str, Any]:
    return {"itemType": kind, "cwd": cwd, "source": source, "target": target, "title": None}


async def test_a_claude_setup_is_detected_imported_and_remembered(
    start_app: StartApp, tmp_path: Path, workdir: Path
) -> None:
    user_home = tmp_path / "user"
    _claude_setup(user_home, workdir)
    server = await start_app(env={"HOME": str(user_home)})
    home, repo = server.home, str(workdir)
    user = str(user_home)

    nothing = await server.request("externalAgentConfig/detect", {})
    found = await server.request(
        "externalAgentConfig/detect", {"includeHome": True, "cwds": [repo, str(tmp_path / "missing")]}
    )
    mark = server.mark()
    imported = await server.request(
        "externalAgentConfig/import", {"migrationItems": found["items"], "providerId": "claude"}
    )
    completed = await server.notification("externalAgentConfig/import/completed", after=mark)
    progress = [
        m["params"] for m in server.since(mark) if m.get("method") == "externalAgentConfig/import/progress"
    ]
    again = await server.request("externalAgentConfig/detect", {"includeHome": True, "cwds": [repo]})
    history = await server.request("externalAgentConfig/import/readHistories")

    assert nothing == {"items": [], "connectors": []}
    assert found == {
        "items": [
            {
                "itemType": "MCP_SERVER_CONFIG",
                "description": f"Migrate MCP servers from {user_home} into {home}/config.toml",
                "cwd": None,
                "details": _details(mcpServers=["files", "remote"]),
            },
            {
                "itemType": "SKILLS",
                "description": f"Migrate skills from {user}/.claude/skills to {user}/.agents/skills",
                "cwd": None,
                "details": _details(skills=["greet"]),
            },
            {
                "itemType": "AGENTS_MD",
                "description": f"Migrate {user_home}/.claude/CLAUDE.md to {home}/AGENTS.md",
                "cwd": None,
                "details": None,
            },
            {
                "itemType": "MCP_SERVER_CONFIG",
                "description": f"Migrate MCP servers from {repo} into {repo}/.codex/config.toml",
                "cwd": repo,
                "details": _details(mcpServers=["proj", "repo-srv"]),
            },
            {
                "itemType": "SKILLS",
                "description": f"Migrate skills from {repo}/.claude/skills to {repo}/.agents/skills",
                "cwd": repo,
                "details": _details(skills=["lint"]),
            },
            {
                "itemType": "AGENTS_MD",
                "description": f"Migrate {repo}/CLAUDE.md to {repo}/AGENTS.md",
                "cwd": repo,
                "details": None,
            },
        ],
        "connectors": [],
    }
    import_id = imported["importId"]
    by_type = {
        "MCP_SERVER_CONFIG": [
            _ok("MCP_SERVER_CONFIG", None, "files", "files"),
            _ok("MCP_SERVER_CONFIG", None, "remote", "remote"),
            _ok("MCP_SERVER_CONFIG", repo, "proj", "proj"),
            _ok("MCP_SERVER_CONFIG", repo, "repo-srv", "repo-srv"),
        ],
        "SKILLS": [_ok("SKILLS", None, "greet", "greet"), _ok("SKILLS", repo, "lint", "lint")],
        "AGENTS_MD": [
            _ok("AGENTS_MD", None, f"{user_home}/.claude/CLAUDE.md", f"{home}/AGENTS.md"),
            _ok("AGENTS_MD", repo, f"{repo}/CLAUDE.md", f"{repo}/AGENTS.md"),
        ],
    }
    assert [p["itemTypeResults"][0]["itemType"] for p in progress] == [i["itemType"] for i in found["items"]]
    assert all(p["importId"] == import_id and len(p["itemTypeResults"]) == 1 for p in progress)
    assert completed["params"]["importId"] == import_id
    assert {
        r["itemType"]: (r["successes"], r["failures"]) for r in completed["params"]["itemTypeResults"]
    } == {kind: (successes, []) for kind, successes in by_type.items()}
    assert again == {"items": [], "connectors": []}
    [entry] = history["data"]
    assert (entry["importId"], entry["providerId"], entry["failures"]) == (import_id, "claude", [])
    assert sorted(entry["successes"], key=json.dumps) == sorted(
        [s for group in by_type.values() for s in group], key=json.dumps
    )

    user_config = tomllib.loads((home / "config.toml").read_text())
    assert user_config["mcp_servers"] == {
        "files": {"command": "npx", "args": ["-y", "srv"], "env": {"TOKEN": "t"}},
        "remote": {"url": "https://mcp.example.com/mcp", "http_headers": {"X-A": "b"}},
    }
    assert tomllib.loads((workdir / ".codex" / "config.toml").read_text())["mcp_servers"] == {
        "proj": {"command": "python3", "args": ["-m", "srv"]},
        "repo-srv": {"command": "node", "args": ["s.js"]},
    }
    assert (home / "AGENTS.md").read_text() == "# Home rules\nUse tabs.\n"
    assert (workdir / "AGENTS.md").read_text() == "# Repo rules\nRun tests.\n"
    assert (user_home / ".agents" / "skills" / "greet" / "SKILL.md").read_text() == SKILL.format("greet")
    assert (workdir / ".agents" / "skills" / "lint" / "SKILL.md").read_text() == SKILL.format("lint")
    assert sorted(p.name for p in (user_home / ".agents" / "skills" / "greet").iterdir()) == ["SKILL.md"]
    skills = await server.request("skills/list", {"cwds": [repo]})
    names = {s["name"] for entry in skills["data"] for s in entry["skills"]}
    assert {"greet", "lint"} <= names


async def test_the_history_keeps_recorded_and_empty_imports_newest_first(
    start_app: StartApp, tmp_path: Path
) -> None:
    server = await start_app(env={"HOME": str(tmp_path / "nobody")})
    recorded = await server.request(
        "externalAgentConfig/import/recordHistory",
        {
            "providerId": "p2",
            "itemTypeResults": [
                {
                    "itemType": "SKILLS",
                    "successes": [{"itemType": "SKILLS", "source": "a", "target": "b"}],
                    "failures": [{"itemType": "SKILLS", "failureStage": "copy", "message": "boom"}],
                }
            ],
        },
    )
    mark = server.mark()
    none = await server.request("externalAgentConfig/import", {"migrationItems": []})
    missing = await server.request(
        "externalAgentConfig/import",
        {"migrationItems": [{"itemType": "SKILLS", "description": "d", "cwd": str(tmp_path / "gone")}]},
    )
    completed = await server.notification("externalAgentConfig/import/completed", after=mark)
    history = await server.request("externalAgentConfig/import/readHistories")

    assert completed["params"] == {
        "importId": missing["importId"],
        "itemTypeResults": [{"itemType": "SKILLS", "successes": [], "failures": []}],
    }
    assert none["importId"] not in json.dumps(server.since(mark)[1:])
    assert [(h["importId"], h["providerId"], h["successes"], h["failures"]) for h in history["data"]] == [
        (missing["importId"], None, [], []),
        (
            recorded["importId"],
            "p2",
            [{"itemType": "SKILLS", "cwd": None, "source": "a", "target": "b", "title": None}],
            [
                {
                    "itemType": "SKILLS",
                    "errorType": None,
                    "subErrorType": None,
                    "failureStage": "copy",
                    "message": "boom",
                    "cwd": None,
                    "source": None,
                }
            ],
        ),
    ]
