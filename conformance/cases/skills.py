"""Managing skills: extra roots, enabling and disabling by name or path, and their errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conformance.client import Client
from conformance.context import CaseContext
from conformance.manifest import case

_ONE_SELECTOR = "skills/config/write requires exactly one of path or name"
_RELATIVE = "Invalid request: AbsolutePathBuf deserialized without a base path"


def _skill(root: Path, name: str) -> Path:
    path = root / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: The {name} skill.\n---\nSteps.\n")
    return path


async def _own(client: Client, cwd: Path) -> list[tuple[Any, Any, Any]]:
    """The listed skills that are not the server's own (`system`), as (name, scope, enabled)."""
    result = await client.request("skills/list", {"cwds": [str(cwd)]})
    skills = result["data"][0]["skills"]
    return [(s["name"], s["scope"], s["enabled"]) for s in skills if s["scope"] != "system"]


def _error(reply: dict[str, Any]) -> tuple[Any, Any]:
    error = reply.get("error") or {}
    return error.get("code"), error.get("message")


@case("skills.manage", requires=["skills.extra-roots", "skills.config-write"])
async def manage(ctx: CaseContext) -> None:
    """Extra roots (with `skills/changed` first), disable and enable by name and path, the errors."""
    client = await ctx.ready_client()
    (ctx.workdir / ".git").mkdir(exist_ok=True)
    repo = _skill(ctx.workdir / ".agents" / "skills", "rr")
    extra = ctx.workdir.parent / "extra-skills"
    _skill(extra, "zz")
    _skill(extra, "bb")

    mark = client.mark()
    answer = await client.request("skills/extraRoots/set", {"extraRoots": [str(extra)]})
    methods = [m.get("method", "<reply>") for m in client.since(mark)]
    first = methods[: methods.index("<reply>") + 1] if "<reply>" in methods else methods
    ctx.expect("skills.extra-roots", (answer, first[-2:]), ({}, ["skills/changed", "<reply>"]), "set")
    listed = await _own(client, ctx.workdir)
    ctx.expect(
        "skills.extra-roots",
        listed,
        [("rr", "repo", True), ("bb", "user", True), ("zz", "user", True)],
        "listed",
    )
    relative = await client.call("skills/extraRoots/set", {"extraRoots": ["relative/skills"]})
    ctx.expect("skills.extra-roots", _error(relative), (-32600, _RELATIVE), "relative root")

    off = await client.request("skills/config/write", {"name": "zz", "enabled": False})
    by_path = await client.request("skills/config/write", {"path": str(repo), "enabled": False})
    ctx.expect(
        "skills.config-write",
        (off, by_path),
        ({"effectiveEnabled": False}, {"effectiveEnabled": False}),
        "disable",
    )
    ctx.expect(
        "skills.config-write",
        await _own(client, ctx.workdir),
        [("rr", "repo", False), ("bb", "user", True), ("zz", "user", False)],
        "listed disabled",
    )
    on = await client.request("skills/config/write", {"name": "zz", "enabled": True})
    ctx.expect("skills.config-write", on, {"effectiveEnabled": True}, "enable")
    neither = await client.call("skills/config/write", {"enabled": False})
    both = await client.call("skills/config/write", {"enabled": False, "name": "zz", "path": str(repo)})
    relative_path = await client.call("skills/config/write", {"enabled": False, "path": "rel/SKILL.md"})
    ctx.expect(
        "skills.config-write",
        [_error(neither), _error(both), _error(relative_path)],
        [(-32602, _ONE_SELECTOR), (-32602, _ONE_SELECTOR), (-32600, _RELATIVE)],
        "errors",
    )
    ctx.expect(
        "skills.config-write",
        await _own(client, ctx.workdir),
        [("rr", "repo", False), ("bb", "user", True), ("zz", "user", True)],
        "after",
    )
