"""Reference samples of the plugin, marketplace, app and plugin-share models."""

from __future__ import annotations

from tether_protocol.common import WireModel
from tether_protocol.v2 import apps as ap
from tether_protocol.v2 import plugins as pl

_FILE = "/m/.agents/plugins/marketplace.json"


def plugin_samples() -> list[tuple[str, WireModel]]:
    """(reference definition name, instance) for each stable model of `plugins` and `apps`."""
    error = pl.MarketplaceUpgradeErrorInfo(marketplace_name="m", message="git clone … failed")
    interface = pl.PluginInterface(display_name="Demo", capabilities=["Read"], default_prompt=["go"])
    summary = pl.PluginSummary(
        id="demo@m",
        local_version="0.1.0",
        name="demo",
        source={"type": "local", "path": "/m/plugins/demo"},
        installed=True,
        enabled=True,
        install_policy="AVAILABLE",
        auth_policy="ON_INSTALL",
        interface=interface,
    )
    entry = pl.PluginMarketplaceEntry(
        name="m", path=_FILE, interface=pl.MarketplaceInterface(display_name="M"), plugins=[summary]
    )
    load_error = pl.MarketplaceLoadErrorInfo(marketplace_path=_FILE, message="invalid JSON")
    skill = pl.PluginSkillSummary(name="demo:hello", description="Greets", path="/p/skills/hello/SKILL.md")
    hook = pl.PluginHookSummary(key="demo@m:hooks.json:pre_tool_use:0:0", event_name="preToolUse")
    detail = pl.PluginDetail(
        marketplace_name="m",
        marketplace_path=_FILE,
        summary=summary,
        description="Demo plugin",
        skills=[skill],
        hooks=[hook],
        mcp_servers=["demo-fx"],
    )
    target = ap.PluginShareTarget(principal_id="u1", principal_type="user", role="reader")
    return [
        (
            "MarketplaceAddParams",
            pl.MarketplaceAddParams(source="owner/repo", ref_name="main", sparse_paths=["p"]),
        ),
        (
            "MarketplaceAddResponse",
            pl.MarketplaceAddResponse(marketplace_name="m", installed_root="/h/m", already_added=False),
        ),
        ("MarketplaceRemoveParams", pl.MarketplaceRemoveParams(marketplace_name="m")),
        ("MarketplaceRemoveResponse", pl.MarketplaceRemoveResponse(marketplace_name="m")),
        ("MarketplaceUpgradeParams", pl.MarketplaceUpgradeParams(marketplace_name="m")),
        ("MarketplaceUpgradeErrorInfo", error),
        (
            "MarketplaceUpgradeResponse",
            pl.MarketplaceUpgradeResponse(selected_marketplaces=["m"], errors=[error]),
        ),
        ("MarketplaceInterface", pl.MarketplaceInterface(display_name="M")),
        ("MarketplaceLoadErrorInfo", load_error),
        ("PluginInterface", interface),
        ("PluginSummary", summary),
        ("PluginMarketplaceEntry", entry),
        ("PluginListParams", pl.PluginListParams(cwds=["/w"], marketplace_kinds=["local"])),
        (
            "PluginListResponse",
            pl.PluginListResponse(marketplaces=[entry], marketplace_load_errors=[load_error]),
        ),
        (
            "PluginInstalledParams",
            pl.PluginInstalledParams(cwds=["/w"], install_suggestion_plugin_names=["demo"]),
        ),
        ("PluginInstalledResponse", pl.PluginInstalledResponse(marketplaces=[entry])),
        ("SkillSummary", skill),
        ("PluginHookSummary", hook),
        ("PluginDetail", detail),
        ("PluginReadParams", pl.PluginReadParams(plugin_name="demo", marketplace_path=_FILE)),
        ("PluginReadResponse", pl.PluginReadResponse(plugin=detail)),
        ("PluginInstallParams", pl.PluginInstallParams(plugin_name="demo", marketplace_path=_FILE)),
        ("PluginInstallResponse", pl.PluginInstallResponse(auth_policy="ON_INSTALL")),
        ("PluginUninstallParams", pl.PluginUninstallParams(plugin_id="demo@m")),
        ("PluginReconcileParams", pl.PluginReconcileParams(reason="startup")),
        ("PluginReconcileResponse", pl.PluginReconcileResponse()),
        (
            "PluginSkillReadParams",
            pl.PluginSkillReadParams(remote_marketplace_name="a", remote_plugin_id="b", skill_name="c"),
        ),
        ("PluginSkillReadResponse", pl.PluginSkillReadResponse()),
        ("AppsListParams", ap.AppsListParams(limit=5, cursor="c")),
        ("AppsListResponse", ap.AppsListResponse()),
        ("AppsReadParams", ap.AppsReadParams(app_ids=["x"])),
        ("AppsReadResponse", ap.AppsReadResponse(missing_app_ids=["x"])),
        ("AppsInstalledParams", ap.AppsInstalledParams(force_refresh=True)),
        ("AppsInstalledResponse", ap.AppsInstalledResponse()),
        ("PluginShareTarget", target),
        ("PluginShareSaveParams", ap.PluginShareSaveParams(plugin_path="/p", share_targets=[target])),
        ("PluginShareSaveResponse", ap.PluginShareSaveResponse(remote_plugin_id="r", share_url="https://x")),
        (
            "PluginShareUpdateTargetsParams",
            ap.PluginShareUpdateTargetsParams(
                remote_plugin_id="r", discoverability="PRIVATE", share_targets=[target]
            ),
        ),
        ("PluginShareUpdateTargetsResponse", ap.PluginShareUpdateTargetsResponse(discoverability="PRIVATE")),
        ("PluginShareListParams", ap.PluginShareListParams()),
        ("PluginShareListResponse", ap.PluginShareListResponse()),
        ("PluginShareCheckoutParams", ap.PluginShareCheckoutParams(remote_plugin_id="r")),
        (
            "PluginShareCheckoutResponse",
            ap.PluginShareCheckoutResponse(
                marketplace_name="m",
                marketplace_path=_FILE,
                plugin_id="demo@m",
                plugin_name="demo",
                plugin_path="/m/plugins/demo",
                remote_plugin_id="r",
            ),
        ),
        ("PluginShareDeleteParams", ap.PluginShareDeleteParams(remote_plugin_id="r")),
    ]


def plugin_schemaless() -> dict[str, WireModel]:
    """Experimental `plugin/search`: the stable reference schema does not describe it."""
    return {
        "PluginSearchParams": pl.PluginSearchParams(search_term="demo", scope="personal"),
        "PluginSearchResponse": pl.PluginSearchResponse(),
    }
