"""`marketplace/*`, `plugin/*` errors, `app/*` and `plugin/share/*` as Codex 0.169.0 answers them
(observed on the binary: a local marketplace folder, a git marketplace served over loopback HTTP,
no auth and an API key). Bad input gets Codex's error and changes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import StartApp
from tests.integration.plugins.market import (
    MARKET,
    PLUGIN,
    build_marketplace,
    plugin_entry,
    served_marketplace,
)
from tests.support.rpcclient import RpcClient, RpcErrorReply

BAD_FORMAT = "invalid marketplace source format; expected owner/repo, a git URL, or a local marketplace path"
NEEDS_CHATGPT = "chatgpt authentication required for remote plugin catalog"


async def _error(server: RpcClient, method: str, params: dict[str, Any]) -> tuple[Any, str]:
    with pytest.raises(RpcErrorReply) as caught:
        await server.request(method, params)
    return caught.value.code, caught.value.message


async def test_local_marketplace_is_read_in_place_and_removed_without_touching_it(
    start_app: StartApp, tmp_path: Path
) -> None:
    folder = build_marketplace(tmp_path / "local-market")
    server = await start_app()
    added = await server.request("marketplace/add", {"source": str(folder)})
    assert added == {"marketplaceName": MARKET, "installedRoot": str(folder), "alreadyAdded": False}
    assert (await server.request("marketplace/add", {"source": str(folder)}))["alreadyAdded"] is True
    file = folder / ".agents/plugins/marketplace.json"
    (entry,) = (await server.request("plugin/list", {}))["marketplaces"]
    assert entry["path"] == str(file)
    assert entry["plugins"][0]["source"] == {"type": "local", "path": str(folder / "plugins" / PLUGIN)}

    # Upgrading is for git marketplaces only; with none, upgrading everything selects nothing.
    assert await _error(server, "marketplace/upgrade", {"marketplaceName": MARKET}) == (
        -32600,
        f"marketplace `{MARKET}` is not configured as a Git marketplace",
    )
    assert await server.request("marketplace/upgrade", {}) == {
        "selectedMarketplaces": [],
        "upgradedRoots": [],
        "errors": [],
    }
    assert await server.request("marketplace/remove", {"marketplaceName": MARKET}) == {
        "marketplaceName": MARKET,
        "installedRoot": None,
    }
    assert file.is_file()
    assert await server.request("plugin/list", {}) == {
        "marketplaces": [],
        "marketplaceLoadErrors": [],
        "featuredPluginIds": [],
    }
    assert await _error(server, "marketplace/remove", {"marketplaceName": MARKET}) == (
        -32600,
        f"marketplace `{MARKET}` is not configured or installed",
    )


async def test_git_marketplace_upgrade_follows_new_commits_and_remove_deletes_the_clone(
    start_app: StartApp, tmp_path: Path
) -> None:
    with served_marketplace(tmp_path) as market:
        server = await start_app()
        root = Path((await server.request("marketplace/add", {"source": market.url}))["installedRoot"])
        # As Codex: the first upgrade after an add reports the root, the next one (no new commit) not.
        first = await server.request("marketplace/upgrade", {})
        assert first == {"selectedMarketplaces": [MARKET], "upgradedRoots": [str(root)], "errors": []}
        nothing = await server.request("marketplace/upgrade", {"marketplaceName": MARKET})
        assert nothing == {"selectedMarketplaces": [MARKET], "upgradedRoots": [], "errors": []}

        build_marketplace(
            market.work, [plugin_entry(PLUGIN, "./plugins/demo"), plugin_entry("second", "./plugins/demo")]
        )
        market.publish("a second plugin")
        upgraded = await server.request("marketplace/upgrade", {})
        assert upgraded == {"selectedMarketplaces": [MARKET], "upgradedRoots": [str(root)], "errors": []}
        (entry,) = (await server.request("plugin/list", {}))["marketplaces"]
        assert [p["name"] for p in entry["plugins"]] == [PLUGIN, "second"]

        missing = await _error(
            server, "marketplace/add", {"source": market.url.replace("market.git", "nothere.git")}
        )
        assert missing[0] == -32603 and "failed with status exit status: 128" in missing[1]
        assert await _error(server, "marketplace/add", {"source": market.url, "refName": "other"}) == (
            -32603,
            "git checkout other failed with status exit status: 1\nstdout:\n\nstderr:\n"
            "error: pathspec 'other' did not match any file(s) known to git",
        )
        removed = await server.request("marketplace/remove", {"marketplaceName": MARKET})
        assert removed == {"marketplaceName": MARKET, "installedRoot": str(root)}
        assert not root.exists()
        assert (await server.request("plugin/list", {}))["marketplaces"] == []


async def test_bad_sources_and_plugin_requests_get_codexs_errors(start_app: StartApp, tmp_path: Path) -> None:
    server = await start_app()
    assert await _error(server, "marketplace/add", {"source": ""}) == (
        -32600,
        "marketplace source must not be empty",
    )
    for source in ("file:///srv/market", "git://127.0.0.1:1/m.git", "-oProxyCommand=x"):
        assert await _error(server, "marketplace/add", {"source": source}) == (-32600, BAD_FORMAT)
    assert await _error(server, "marketplace/add", {"source": str(tmp_path / "nonexist")}) == (
        -32600,
        "failed to resolve local marketplace source path: No such file or directory (os error 2)",
    )
    assert await _error(server, "marketplace/add", {"source": str(tmp_path)}) == (
        -32600,
        f"invalid marketplace file `{tmp_path}`: marketplace root does not contain a supported manifest",
    )
    assert await _error(server, "marketplace/remove", {"marketplaceName": "nope"}) == (
        -32600,
        "marketplace `nope` is not configured or installed",
    )
    assert await _error(server, "marketplace/upgrade", {"marketplaceName": "nope"}) == (
        -32600,
        "marketplace `nope` is not configured as a Git marketplace",
    )
    for method in ("plugin/read", "plugin/install"):
        assert await _error(server, method, {"pluginName": "x"}) == (
            -32600,
            f"{method} requires exactly one of marketplacePath or remoteMarketplaceName",
        )
    assert await _error(
        server, "plugin/install", {"pluginName": "x", "marketplacePath": "relative.json"}
    ) == (
        -32600,
        "Invalid request: AbsolutePathBuf deserialized without a base path",
    )
    gone = tmp_path / "m/.agents/plugins/marketplace.json"
    assert await _error(server, "plugin/install", {"pluginName": "x", "marketplacePath": str(gone)}) == (
        -32600,
        f"marketplace file `{gone}` does not exist",
    )
    file = build_marketplace(tmp_path / "market") / ".agents/plugins/marketplace.json"
    for method in ("plugin/read", "plugin/install"):
        assert await _error(server, method, {"pluginName": "nope", "marketplacePath": str(file)}) == (
            -32600,
            f"plugin `nope` was not found in marketplace `{MARKET}`",
        )
    assert await server.request("plugin/uninstall", {"pluginId": "x@y"}) == {}
    for bad in ("../x@y", "a@b@c"):
        assert await _error(server, "plugin/uninstall", {"pluginId": bad}) == (
            -32600,
            "invalid remote plugin id",
        )
    assert await server.request("plugin/reconcile", {}) == {
        "changedPlugins": [],
        "failedRemotePluginIds": [],
        "failedMaterializationRemotePluginIds": [],
    }
    assert not (tmp_path / "home/plugins/state.json").exists()


HOSTED: list[tuple[str, dict[str, Any], str]] = [
    ("plugin/read", {"pluginName": "d", "remoteMarketplaceName": "x"}, "read remote plugin details"),
    (
        "plugin/install",
        {"pluginName": "d", "remoteMarketplaceName": "x"},
        "read remote plugin details before install",
    ),
    ("plugin/uninstall", {"pluginId": "bad"}, "resolve remote plugin before uninstall"),
    (
        "plugin/skill/read",
        {"remoteMarketplaceName": "a", "remotePluginId": "b", "skillName": "c"},
        "read remote plugin skill details",
    ),
    ("plugin/list", {"marketplaceKinds": ["shared-with-me"]}, "list remote plugin catalog"),
    ("plugin/share/save", {"pluginPath": "/p"}, "save remote plugin share"),
    (
        "plugin/share/updateTargets",
        {"remotePluginId": "r", "discoverability": "PRIVATE", "shareTargets": []},
        "update remote plugin share targets",
    ),
    ("plugin/share/list", {}, "list remote plugin shares"),
    ("plugin/share/checkout", {"remotePluginId": "r"}, "checkout plugin share"),
    ("plugin/share/delete", {"remotePluginId": "r"}, "delete remote plugin share"),
]


async def test_hosted_features_answer_as_codex_without_chatgpt(start_app: StartApp) -> None:
    server = await start_app()
    for method, params, what in HOSTED:
        assert await _error(server, method, params) == (-32600, f"{what}: {NEEDS_CHATGPT}"), method
    assert await server.request("app/list", {"limit": 5, "cursor": "abc"}) == {"data": [], "nextCursor": None}
    assert await server.request("app/read", {"appIds": ["x", "x", "y"]}) == {
        "apps": [],
        "missingAppIds": ["x", "y"],
    }
    assert await server.request("app/installed", {"forceRefresh": True}) == {"apps": []}
    assert await _error(server, "plugin/share/save", {"pluginPath": "rel"}) == (
        -32600,
        "Invalid request: AbsolutePathBuf deserialized without a base path",
    )

    await server.request("account/login/start", {"type": "apiKey", "apiKey": "sk-test"})
    for method, params, what in HOSTED:
        expected = f"{what}: {NEEDS_CHATGPT}; api key auth is not supported"
        assert await _error(server, method, params) == (-32600, expected), method
