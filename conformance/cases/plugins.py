"""Plugins from a local marketplace folder, and the hosted catalog's answers without ChatGPT."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conformance.context import CaseContext
from conformance.manifest import case

_NEEDS_CHATGPT = "list remote plugin shares: chatgpt authentication required for remote plugin catalog"


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def _marketplace(root: Path) -> Path:
    entry = {"name": "demo", "source": {"source": "local", "path": "./plugins/demo"}, "policy": {}}
    _write(root / ".agents/plugins/marketplace.json", {"name": "conf-market", "plugins": [entry]})
    plugin = root / "plugins/demo"
    _write(plugin / ".codex-plugin/plugin.json", {"name": "demo", "version": "1.0.0", "skills": "./skills/"})
    skill = plugin / "skills/hi/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: hi\ndescription: Say hi\n---\nHi.\n")
    return root


@case("plugins.local-marketplace", requires=["plugins.local-marketplace", "plugins.hosted-catalog"])
async def local_marketplace(ctx: CaseContext) -> None:
    """Add a local marketplace, read, install and uninstall its plugin, remove it; the hosted catalog."""
    client = await ctx.ready_client()
    root = _marketplace(ctx.workdir / "market")
    file = str(root / ".agents/plugins/marketplace.json")
    added = (await client.call("marketplace/add", {"source": str(root)})).get("result") or {}
    ctx.expect(
        "plugins.local-marketplace",
        (added.get("marketplaceName"), added.get("alreadyAdded")),
        ("conf-market", False),
        "add",
    )
    read = await client.call("plugin/read", {"pluginName": "demo", "marketplacePath": file})
    plugin = (read.get("result") or {}).get("plugin") or {}
    names = [s.get("name") for s in plugin.get("skills") or []]
    ctx.expect(
        "plugins.local-marketplace",
        (plugin.get("summary", {}).get("id"), names),
        ("demo@conf-market", ["demo:hi"]),
        "read",
    )
    installed = (await client.call("plugin/install", {"pluginName": "demo", "marketplacePath": file})).get(
        "result"
    )
    ctx.expect(
        "plugins.local-marketplace", installed, {"authPolicy": "ON_INSTALL", "appsNeedingAuth": []}, "install"
    )
    listing = (await client.call("plugin/installed", {})).get("result") or {}
    ids = [p.get("id") for m in listing.get("marketplaces") or [] for p in m.get("plugins") or []]
    ctx.expect("plugins.local-marketplace", ids, ["demo@conf-market"], "installed")
    gone = await client.call("plugin/uninstall", {"pluginId": "demo@conf-market"})
    ctx.expect("plugins.local-marketplace", gone.get("result"), {}, "uninstall")
    removed = (await client.call("marketplace/remove", {"marketplaceName": "conf-market"})).get("result")
    ctx.expect(
        "plugins.local-marketplace",
        removed,
        {"marketplaceName": "conf-market", "installedRoot": None},
        "remove",
    )

    shares = await client.call("plugin/share/list", {})
    error = shares.get("error") or {}
    ctx.expect(
        "plugins.hosted-catalog",
        (error.get("code"), error.get("message")),
        (-32600, _NEEDS_CHATGPT),
        "share list",
    )
    apps = await client.call("app/list", {})
    ctx.expect("plugins.hosted-catalog", apps.get("result"), {"data": [], "nextCursor": None}, "app/list")
