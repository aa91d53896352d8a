"""A marketplace source, ref, sparse path or plugin id comes from a client, and a marketplace's
content from whoever published it: neither reaches `git` as an option or a transport helper, nor
points Tether's writes or reads outside `$TETHER_HOME/plugins` and the marketplace itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import StartApp
from tests.integration.plugins.market import (
    MARKET,
    build_marketplace,
    plugin_entry,
    served_marketplace,
    write_json,
)
from tests.support.rpcclient import RpcClient, RpcErrorReply

BAD_FORMAT = "invalid marketplace source format; expected owner/repo, a git URL, or a local marketplace path"


async def _code(server: RpcClient, method: str, params: dict[str, Any]) -> tuple[Any, str]:
    with pytest.raises(RpcErrorReply) as caught:
        await server.request(method, params)
    return caught.value.code, caught.value.message


async def test_hostile_sources_run_nothing_and_add_nothing(start_app: StartApp, tmp_path: Path) -> None:
    canary = tmp_path / "pwned"
    server = await start_app()
    hostile = [
        f"--upload-pack=touch {canary}",
        f"ext::sh -c touch% {canary}",
        f"-u touch {canary}",
        f"http://127.0.0.1:1/x.git --upload-pack=touch {canary}",
        "http://127.0.0.1:1/x.git\n--upload-pack=x",
        "file:///etc",
        "../../etc",
    ]
    for source in hostile:
        assert await _code(server, "marketplace/add", {"source": source}) == (-32600, BAD_FORMAT), source
    with served_marketplace(tmp_path) as market:
        for ref in ("--upload-pack=x", "-b", "../../x", "a..b"):
            code, _ = await _code(server, "marketplace/add", {"source": market.url, "refName": ref})
            assert code == -32600, ref
        for sparse in (["../outside"], ["--x"], ["/etc"]):
            code, _ = await _code(server, "marketplace/add", {"source": market.url, "sparsePaths": sparse})
            assert code == -32600, sparse
    assert not canary.exists()
    assert (await server.request("plugin/list", {}))["marketplaces"] == []
    assert not (tmp_path / "home/plugins/marketplaces" / MARKET).exists()


async def test_a_marketplace_cannot_point_outside_itself(start_app: StartApp, tmp_path: Path) -> None:
    secret = tmp_path / "outside"
    (secret / ".codex-plugin").mkdir(parents=True)
    write_json(secret / ".codex-plugin/plugin.json", {"name": "outside", "skills": "./"})
    folder = build_marketplace(
        tmp_path / "evil",
        [
            plugin_entry("escape", "../outside"),
            plugin_entry("absolute", str(secret)),
            plugin_entry("../evil-name", "./plugins/demo"),
            plugin_entry("demo", "./plugins/demo"),
        ],
    )
    # A manifest naming files outside its plugin contributes nothing from there.
    write_json(
        folder / "plugins/demo/.codex-plugin/plugin.json",
        {
            "name": "demo",
            "version": "../../../escaped",
            "skills": "../../../outside",
            "mcpServers": "/etc/x.json",
        },
    )
    server = await start_app()
    await server.request("marketplace/add", {"source": str(folder)})
    (entry,) = (await server.request("plugin/list", {}))["marketplaces"]
    assert [p["name"] for p in entry["plugins"]] == ["demo"]
    file = folder / ".agents/plugins/marketplace.json"
    detail = (await server.request("plugin/read", {"pluginName": "demo", "marketplacePath": str(file)}))[
        "plugin"
    ]
    assert (detail["skills"], detail["mcpServers"]) == ([], [])
    for name in ("escape", "absolute", "../evil-name"):
        code, _ = await _code(server, "plugin/install", {"pluginName": name, "marketplacePath": str(file)})
        assert code == -32600
    await server.request("plugin/install", {"pluginName": "demo", "marketplacePath": str(file)})
    cache = tmp_path / "home/plugins/cache" / MARKET / "demo"
    assert [p.name for p in cache.iterdir()] == ["local"]  # the unsafe version is not a path
    assert not (tmp_path / "escaped").exists()

    # A marketplace whose name is a path is refused whole.
    write_json(file, {"name": "../../x", "plugins": []})
    other = await _code(server, "marketplace/add", {"source": str(folder)})
    assert other[0] == -32600 and "invalid `name`" in other[1]
    assert await _code(server, "plugin/uninstall", {"pluginId": "../../x@y"}) == (
        -32600,
        "invalid remote plugin id",
    )
    assert cache.is_dir()
