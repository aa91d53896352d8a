"""Skills managed as Codex 0.169.0 manages them (observed on the binary): Tether's own system skills
listed with scope `system`; `skills/config/write` enabling and disabling by path or name in
config.toml's `[[skills.config]]`; `skills/extraRoots/set`; `skills/changed` when a watched skills
folder changes; disabled skills kept out of the model's context."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import StartApp
from tests.support.rpcclient import RpcClient, RpcErrorReply
from tether_testing.fake_responses import FakeResponsesServer
from tether_testing.script import text_reply

SYSTEM = ["create-skill", "install-skill", "write-agents-md"]
ONE_SELECTOR = "skills/config/write requires exactly one of path or name"
RELATIVE = "Invalid request: AbsolutePathBuf deserialized without a base path"


def _skill(root: Path, name: str, description: str = "Does a thing.") -> Path:
    (root / name).mkdir(parents=True, exist_ok=True)
    path = root / name / "SKILL.md"
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n\nSteps.\n")
    return path


@pytest.fixture
def project(workdir: Path) -> Path:
    (workdir / ".git").mkdir()
    _skill(workdir / ".agents" / "skills", "rr", "A repository skill.")
    _skill(workdir / ".agents" / "skills", "aa", "Another repository skill.")
    return workdir


async def _start(start_app: StartApp, tmp_path: Path) -> RpcClient:
    user = tmp_path / "user"  # the user's ~ (its ~/.agents/skills), away from the real one
    user.mkdir(exist_ok=True)
    server = await start_app(env={"HOME": str(user)})
    return server


async def _listed(server: RpcClient, cwd: Path, **extra: Any) -> list[tuple[str, str, bool]]:
    data = (await server.request("skills/list", {"cwds": [str(cwd)], **extra}))["data"]
    assert [entry["errors"] for entry in data] == [[]]
    return [(s["name"], s["scope"], s["enabled"]) for s in data[0]["skills"]]


async def _error(server: RpcClient, method: str, params: dict[str, Any]) -> tuple[Any, str]:
    with pytest.raises(RpcErrorReply) as caught:
        await server.request(method, params)
    return caught.value.code, caught.value.message


def _config(home: Path) -> Any:
    path = home / "config.toml"
    return tomllib.loads(path.read_text()) if path.exists() else {}


async def test_system_skills_are_listed_after_repo_and_user_skills(
    start_app: StartApp, tmp_path: Path, project: Path
) -> None:
    server = await _start(start_app, tmp_path)
    _skill(tmp_path / "home" / "skills", "mine")
    _skill(tmp_path / "user" / ".agents" / "skills", "everywhere")
    data = (await server.request("skills/list", {"cwds": [str(project)]}))["data"][0]
    # As Codex: by scope (repo, user, system), by name within a scope.
    assert [(s["name"], s["scope"]) for s in data["skills"]] == [
        ("aa", "repo"),
        ("rr", "repo"),
        ("everywhere", "user"),
        ("mine", "user"),
        *((name, "system") for name in SYSTEM),
    ]
    for skill in data["skills"][-3:]:
        # Shipped with Tether and readable where listed; its front matter is what is listed.
        text = Path(skill["path"]).read_text()
        assert skill["enabled"] is True and f"name: {skill['name']}" in text
        assert skill["description"] and skill["description"] in text
    # Every list reads the folders again, so `forceReload` lists the same.
    assert await _listed(server, project, forceReload=True) == [
        (s["name"], s["scope"], True) for s in data["skills"]
    ]


async def test_disabling_and_enabling_by_name_and_by_path(
    start_app: StartApp, tmp_path: Path, project: Path
) -> None:
    server = await _start(start_app, tmp_path)
    home = tmp_path / "home"
    rr = project / ".agents" / "skills" / "rr" / "SKILL.md"
    answer = await server.request("skills/config/write", {"path": str(rr), "enabled": False})
    assert answer == {"effectiveEnabled": False}
    answer = await server.request("skills/config/write", {"name": "install-skill", "enabled": False})
    assert answer == {"effectiveEnabled": False}
    # Written twice, kept once.
    await server.request("skills/config/write", {"name": "install-skill", "enabled": False})
    assert _config(home)["skills"]["config"] == [
        {"path": str(rr), "enabled": False},
        {"name": "install-skill", "enabled": False},
    ]
    assert "[[skills.config]]" in (home / "config.toml").read_text()
    # As Codex, config/read reports them (and the daemon's config holds them at once).
    config = (await server.request("config/read", {}))["config"]
    assert config["skills"]["config"] == _config(home)["skills"]["config"]
    listed = await _listed(server, project)
    assert ("rr", "repo", False) in listed and ("install-skill", "system", False) in listed
    assert ("aa", "repo", True) in listed and ("create-skill", "system", True) in listed

    # Enabling removes that selector's entries only: by path, while disabled by name, it stays
    # disabled, and Codex still answers the state asked for.
    path = next(
        Path(p)
        for p in _paths(await server.request("skills/list", {"cwds": [str(project)]}))
        if p.endswith("install-skill/SKILL.md")
    )
    answer = await server.request("skills/config/write", {"path": str(path), "enabled": True})
    assert answer == {"effectiveEnabled": True}
    assert ("install-skill", "system", False) in await _listed(server, project)
    answer = await server.request("skills/config/write", {"name": "install-skill", "enabled": True})
    assert answer == {"effectiveEnabled": True}
    assert _config(home)["skills"]["config"] == [{"path": str(rr), "enabled": False}]
    assert ("install-skill", "system", True) in await _listed(server, project)
    await server.request("skills/config/write", {"path": str(rr), "enabled": True})
    assert "config" not in _config(home).get("skills", {})
    # Unknown selectors are written as Codex writes them: they simply match nothing.
    answer = await server.request("skills/config/write", {"name": "nosuch", "enabled": False})
    assert answer == {"effectiveEnabled": False}
    assert _config(home)["skills"]["config"] == [{"name": "nosuch", "enabled": False}]


def _paths(listing: dict[str, Any]) -> list[str]:
    return [s["path"] for entry in listing["data"] for s in entry["skills"]]


@pytest.mark.parametrize(
    ("params", "code", "message"),
    [
        ({"enabled": False}, -32602, ONE_SELECTOR),
        ({"enabled": False, "name": ""}, -32602, ONE_SELECTOR),
        ({"enabled": False, "name": "mine", "path": "/x/SKILL.md"}, -32602, ONE_SELECTOR),
        ({"enabled": False, "path": "rel/SKILL.md"}, -32600, RELATIVE),
    ],
)
async def test_config_write_refuses_what_codex_refuses_and_writes_nothing(
    start_app: StartApp, tmp_path: Path, params: dict[str, Any], code: int, message: str
) -> None:
    server = await _start(start_app, tmp_path)
    before = (
        (tmp_path / "home" / "config.toml").read_bytes()
        if (tmp_path / "home" / "config.toml").exists()
        else None
    )
    assert await _error(server, "skills/config/write", params) == (code, message)
    after = (
        (tmp_path / "home" / "config.toml").read_bytes()
        if (tmp_path / "home" / "config.toml").exists()
        else None
    )
    assert after == before


async def test_extra_roots_add_user_skills_and_announce_a_change(
    start_app: StartApp, tmp_path: Path, project: Path
) -> None:
    server = await _start(start_app, tmp_path)
    extra = tmp_path / "extra"
    _skill(extra, "zz")
    _skill(extra, "bb")
    mark = server.mark()
    assert await server.request("skills/extraRoots/set", {"extraRoots": [str(extra)]}) == {}
    # As Codex: `skills/changed` (empty params) comes before the answer.
    kinds = [(m.get("method"), m.get("params")) if "method" in m else "<result>" for m in server.since(mark)]
    assert kinds[:2] == [("skills/changed", {}), "<result>"]
    listed = await _listed(server, project)
    assert [n for n, scope, _ in listed if scope == "user"] == ["bb", "zz"]

    # A relative root is refused and the roots stay as they were.
    code_message = await _error(server, "skills/extraRoots/set", {"extraRoots": ["relative/skills"]})
    assert code_message == (-32600, RELATIVE)
    assert [n for n, scope, _ in await _listed(server, project) if scope == "user"] == ["bb", "zz"]
    # A missing folder or a file is taken (Codex takes them) and lists nothing.
    missing = {"extraRoots": [str(tmp_path / "nowhere"), str(extra / "zz" / "SKILL.md")]}
    assert await server.request("skills/extraRoots/set", missing) == {}
    assert [n for n, scope, _ in await _listed(server, project) if scope == "user"] == []


async def test_a_new_or_edited_skill_sends_skills_changed(
    start_app: StartApp, tmp_path: Path, project: Path
) -> None:
    server = await _start(start_app, tmp_path)
    await _listed(server, project)
    mark = server.mark()
    _skill(tmp_path / "home" / "skills", "fresh")
    await server.notification("skills/changed", after=mark)
    assert ("fresh", "user", True) in await _listed(server, project)

    mark = server.mark()
    rr = project / ".agents" / "skills" / "rr" / "SKILL.md"
    rr.write_text("---\nname: rr\ndescription: Changed.\n---\n")
    await server.notification("skills/changed", after=mark)
    data = (await server.request("skills/list", {"cwds": [str(project)]}))["data"][0]
    assert next(s for s in data["skills"] if s["name"] == "rr")["description"] == "Changed."


async def test_the_model_sees_enabled_skills_only_with_extra_and_system_skills(
    start_app: StartApp, tmp_path: Path, project: Path, fake_model: FakeResponsesServer
) -> None:
    server = await _start(start_app, tmp_path)
    extra = tmp_path / "extra"
    _skill(extra, "from-extra")
    await server.request("skills/extraRoots/set", {"extraRoots": [str(extra)]})
    await server.request("skills/config/write", {"name": "aa", "enabled": False})
    await server.request("skills/config/write", {"name": "write-agents-md", "enabled": False})
    fake_model.add(text_reply("ok"))
    tid = (await server.request("thread/start", {"cwd": str(project)}))["thread"]["id"]
    mark = server.mark()
    await server.request("turn/start", {"threadId": tid, "input": [{"type": "text", "text": "hi"}]})
    await server.notification("turn/completed", after=mark)
    body = (await fake_model.wait_for_request(1)).body
    text = "\n".join(
        part.get("text", "")
        for item in body["input"]
        if item.get("role") == "developer"
        for part in item["content"]
    )
    assert "- rr: A repository skill." in text and "- from-extra: Does a thing." in text
    assert "- create-skill: " in text and "- install-skill: " in text
    assert "- aa: " not in text and "- write-agents-md: " not in text
