"""A plugin installed from a git marketplace brings its skill and MCP server into the next thread,
as Codex 0.169.0 does (observed with the same marketplace, served the same way): `marketplace/add`
clones it, `plugin/list|read|installed` describe it, `plugin/install` makes it count,
`plugin/uninstall` takes it away again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import StartApp
from tests.integration.plugins.market import (
    MARKET,
    PLUGIN,
    SERVER,
    SKILL_DESCRIPTION,
    build_marketplace,
    served_marketplace,
)
from tests.integration.tools_ext.mcp_support import wait_status
from tests.support.rpcclient import RpcClient
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

PLUGIN_ID = f"{PLUGIN}@{MARKET}"


async def _first_request(
    server: RpcClient, fake: FakeResponsesServer, workdir: Path, search: bool = False
) -> tuple[dict[str, Any], str]:
    """A new thread's first turn: the body of its first model request, and what a `tool_search`
    for the plugin server's tools found (when `search` and the thread has MCP tools to search)."""
    if search:
        fake.add(script.reply(script.function_call("tool_search", {"query": "lookup"}, "call_s")))
    fake.add(script.text_reply("ok"))
    seen = len(fake.requests)
    thread = (await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"]
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread, "input": [{"type": "text", "text": "hi"}]})
    await server.notification("turn/completed", after=mark, within_s=60)
    found = ""
    for request in fake.requests[seen:]:
        for item in request.body["input"]:
            if item.get("call_id") == "call_s" and item["type"] == "function_call_output":
                found = str(item["output"])
    return dict(fake.requests[seen].body), found


async def test_installed_plugin_brings_its_skill_and_mcp_server_to_the_next_thread(
    start_app: StartApp, fake_model: FakeResponsesServer, workdir: Path, tmp_path: Path
) -> None:
    with served_marketplace(tmp_path) as market:
        server = await start_app()
        home = tmp_path / "home"
        added = await server.request("marketplace/add", {"source": market.url})
        root = home / "plugins" / "marketplaces" / MARKET
        assert added == {"marketplaceName": MARKET, "installedRoot": str(root), "alreadyAdded": False}
        again = await server.request("marketplace/add", {"source": market.url})
        assert again["alreadyAdded"] is True
        assert (await server.request("plugin/installed", {}))["marketplaces"] == []

        listed = await server.request("plugin/list", {})
        (entry,) = listed["marketplaces"]
        file = root / ".agents/plugins/marketplace.json"
        assert (entry["name"], entry["path"], entry["interface"]) == (
            MARKET,
            str(file),
            {"displayName": "Test Market"},
        )
        (summary,) = entry["plugins"]
        assert summary["id"] == PLUGIN_ID and summary["localVersion"] == "0.1.0"
        assert (summary["installed"], summary["enabled"]) == (False, False)
        assert summary["source"] == {"type": "local", "path": str(root / "plugins" / PLUGIN)}
        assert (summary["installPolicy"], summary["authPolicy"], summary["availability"]) == (
            "AVAILABLE",
            "ON_INSTALL",
            "AVAILABLE",
        )
        assert summary["interface"]["displayName"] == "Demo" and summary["interface"]["capabilities"] == [
            "Read"
        ]

        detail = (await server.request("plugin/read", {"pluginName": PLUGIN, "marketplacePath": str(file)}))[
            "plugin"
        ]
        assert detail["marketplaceName"] == MARKET and detail["description"] == "Demo plugin"
        assert [s["name"] for s in detail["skills"]] == [f"{PLUGIN}:hello"]
        assert detail["mcpServers"] == [SERVER]
        assert detail["hooks"] == [
            {"key": f"{PLUGIN_ID}:hooks.json:pre_tool_use:0:0", "eventName": "preToolUse"}
        ]

        before, found = await _first_request(server, fake_model, workdir, search=True)
        assert SKILL_DESCRIPTION not in json.dumps(before) and SERVER not in found

        mark = server.mark()
        answer = await server.request("plugin/install", {"pluginName": PLUGIN, "marketplacePath": str(file)})
        assert answer == {"authPolicy": "ON_INSTALL", "appsNeedingAuth": []}
        (installed,) = (await server.request("plugin/installed", {}))["marketplaces"]
        assert [(p["id"], p["installed"], p["enabled"]) for p in installed["plugins"]] == [
            (PLUGIN_ID, True, True)
        ]
        assert (home / "plugins/cache" / MARKET / PLUGIN / "0.1.0/.codex-plugin/plugin.json").is_file()

        status = await wait_status(server, SERVER, "connected", after=mark)
        assert status["pluginId"] == PLUGIN_ID
        # Its hook is listed as Codex lists a plugin's hook: from the installed copy, untrusted.
        listed_hooks = (await server.request("hooks/list", {"cwds": [str(workdir)]}))["data"][0]["hooks"]
        (hook,) = [h for h in listed_hooks if h["source"] == "plugin"]
        assert (hook["pluginId"], hook["eventName"], hook["matcher"], hook["trustStatus"]) == (
            PLUGIN_ID,
            "preToolUse",
            "Bash",
            "untrusted",
        )
        assert hook["sourcePath"] == str(home / "plugins/cache" / MARKET / PLUGIN / "0.1.0/hooks.json")
        assert hook["key"] == f"{PLUGIN_ID}:hooks.json:pre_tool_use:0:0"  # as plugin/read names it

        # skills/list shows the skill as Codex does: named after its plugin, scope user.
        listed_skills = (await server.request("skills/list", {"cwds": [str(workdir)]}))["data"][0]["skills"]
        (skill,) = [s for s in listed_skills if s.get("pluginId") == PLUGIN_ID]
        assert (skill["name"], skill["scope"], skill["enabled"]) == (f"{PLUGIN}:hello", "user", True)
        assert skill["path"] == str(home / "plugins/cache" / MARKET / PLUGIN / "0.1.0/skills/hello/SKILL.md")

        # The skill is in the new thread's context; the server's tools are found by tool search.
        body, found = await _first_request(server, fake_model, workdir, search=True)
        assert SKILL_DESCRIPTION in json.dumps(body)
        assert f"'name': 'mcp__{SERVER}'" in found and "'name': 'lookup'" in found

        assert await server.request("plugin/uninstall", {"pluginId": PLUGIN_ID}) == {}
        assert (await server.request("plugin/installed", {}))["marketplaces"] == []
        listed_hooks = (await server.request("hooks/list", {"cwds": [str(workdir)]}))["data"][0]["hooks"]
        assert not [h for h in listed_hooks if h["source"] == "plugin"]
        after, found = await _first_request(server, fake_model, workdir, search=True)
        assert SKILL_DESCRIPTION not in json.dumps(after) and SERVER not in found


async def test_an_installed_plugin_is_still_there_after_a_restart(
    start_app: StartApp, workdir: Path, tmp_path: Path
) -> None:
    folder = build_marketplace(tmp_path / "local-market")
    file = folder / ".agents/plugins/marketplace.json"
    home = tmp_path / "home"
    first = await start_app(home=home)
    await first.request("marketplace/add", {"source": str(folder)})
    await first.request("plugin/install", {"pluginName": PLUGIN, "marketplacePath": str(file)})
    # Installing again replaces the copy in one step with what the marketplace holds now.
    (folder / "plugins" / PLUGIN / "skills/hello/SKILL.md").write_text(
        "---\nname: hello\ndescription: Greets again\n---\nHello.\n"
    )
    again = await first.request("plugin/install", {"pluginName": PLUGIN, "marketplacePath": str(file)})
    assert again == {"authPolicy": "ON_INSTALL", "appsNeedingAuth": []}
    await first.close()
    cached = home / "plugins/cache" / MARKET / PLUGIN
    assert [p.name for p in cached.iterdir()] == ["0.1.0"]
    assert "Greets again" in (cached / "0.1.0/skills/hello/SKILL.md").read_text()

    server = await start_app(home=home)
    (entry,) = (await server.request("plugin/installed", {}))["marketplaces"]
    assert [(p["id"], p["enabled"]) for p in entry["plugins"]] == [(PLUGIN_ID, True)]
    skills = (await server.request("skills/list", {"cwds": [str(workdir)]}))["data"][0]["skills"]
    assert [s["name"] for s in skills if s.get("pluginId") == PLUGIN_ID] == [f"{PLUGIN}:hello"]
    status = await wait_status(server, SERVER, "connected")
    assert status["pluginId"] == PLUGIN_ID
