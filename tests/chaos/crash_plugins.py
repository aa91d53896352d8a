"""The crash battery's plugins: a local marketplace is added once, then beside each turn a client
installs or uninstalls its plugin, one request at a time. After a kill, the plugin is installed or
not as the last answered request left it, or as the one the kill cut off did (its answer may have
been swallowed); the state file is whole (the marketplace still listed, nothing fails to load) and an
installed plugin's copy is complete."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.support.rpcclient import RpcClient

PLUGIN_ID = "chaos-plugin@chaos-market"


class PluginInstalls:
    def __init__(self, folder: Path, home: Path) -> None:
        self.folder, self.home = folder, home
        self.asked: list[bool] = []  # installed after each request, in the order asked
        self.last_answered = -1
        self._one_at_a_time = asyncio.Lock()

    def _file(self) -> Path:
        return self.folder / ".agents/plugins/marketplace.json"

    async def prepare(self, client: RpcClient) -> None:
        if not self._file().exists():
            plugin = self.folder / "plugins/chaos-plugin"
            (plugin / ".codex-plugin").mkdir(parents=True)
            (plugin / ".codex-plugin/plugin.json").write_text(
                json.dumps({"name": "chaos-plugin", "version": "1.0.0"})
            )
            entry = {"name": "chaos-plugin", "source": {"source": "local", "path": "./plugins/chaos-plugin"}}
            self._file().parent.mkdir(parents=True)
            self._file().write_text(json.dumps({"name": "chaos-market", "plugins": [entry]}))
        await client.request("marketplace/add", {"source": str(self.folder)})

    async def step(self, client: RpcClient, n: int) -> None:
        async with self._one_at_a_time:
            install = n % 2 == 1
            index = len(self.asked)
            self.asked.append(install)
            if install:
                await client.request(
                    "plugin/install", {"pluginName": "chaos-plugin", "marketplacePath": str(self._file())}
                )
            else:
                await client.request("plugin/uninstall", {"pluginId": PLUGIN_ID})
            self.last_answered = index

    async def check(self, client: RpcClient) -> None:
        listed = await client.request("plugin/list", {})
        assert listed["marketplaceLoadErrors"] == [], listed
        (market,) = listed["marketplaces"]
        (plugin,) = market["plugins"]
        possible = set(self.asked[max(self.last_answered, 0) :]) if self.asked else {False}
        if self.last_answered < 0:
            possible.add(False)
        assert plugin["installed"] in possible, f"installed={plugin['installed']}, possible {possible}"
        if plugin["installed"]:
            manifest = self.home / "plugins/cache/chaos-market/chaos-plugin/1.0.0/.codex-plugin/plugin.json"
            assert json.loads(manifest.read_text())["name"] == "chaos-plugin"
