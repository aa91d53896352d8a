"""The method table's plugins, marketplaces, apps and plugin shares (`plugin/*`, `marketplace/*`,
`app/*`). `methods.CLIENT_METHODS` takes every spec of this module too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether_protocol.common import EmptyResult
from tether_protocol.lazy_models import models
from tether_protocol.spec import MethodSpec

# The models load on first use (lazy_models); mypy reads the real modules.
if TYPE_CHECKING:
    from tether_protocol.v2 import apps as ap
    from tether_protocol.v2 import plugins as pl
else:
    ap = models("tether_protocol.v2.apps")
    pl = models("tether_protocol.v2.plugins")

MARKETPLACE_ADD = MethodSpec(
    "marketplace/add",
    pl.MarketplaceAddParams,
    pl.MarketplaceAddResponse,
    doc="Add a plugin marketplace: a local folder, a git URL or `owner/repo`.",
)
MARKETPLACE_REMOVE = MethodSpec(
    "marketplace/remove",
    pl.MarketplaceRemoveParams,
    pl.MarketplaceRemoveResponse,
    doc="Forget a marketplace (and delete its clone).",
)
MARKETPLACE_UPGRADE = MethodSpec(
    "marketplace/upgrade",
    pl.MarketplaceUpgradeParams,
    pl.MarketplaceUpgradeResponse,
    doc="Fetch the newest revision of git marketplaces.",
)
PLUGIN_LIST = MethodSpec(
    "plugin/list", pl.PluginListParams, pl.PluginListResponse, doc="Marketplaces and their plugins."
)
PLUGIN_INSTALLED = MethodSpec(
    "plugin/installed",
    pl.PluginInstalledParams,
    pl.PluginInstalledResponse,
    doc="Marketplaces with their installed plugins.",
)
PLUGIN_READ = MethodSpec(
    "plugin/read", pl.PluginReadParams, pl.PluginReadResponse, doc="One plugin and what it brings."
)
PLUGIN_INSTALL = MethodSpec(
    "plugin/install",
    pl.PluginInstallParams,
    pl.PluginInstallResponse,
    doc="Install a plugin from a marketplace; new threads get its skills and MCP servers.",
)
PLUGIN_UNINSTALL = MethodSpec(
    "plugin/uninstall", pl.PluginUninstallParams, EmptyResult, doc="Remove an installed plugin."
)
PLUGIN_RECONCILE = MethodSpec(
    "plugin/reconcile",
    pl.PluginReconcileParams,
    pl.PluginReconcileResponse,
    doc="Sync remote plugin bundles (none without the hosted catalog).",
)
PLUGIN_SKILL_READ = MethodSpec(
    "plugin/skill/read",
    pl.PluginSkillReadParams,
    pl.PluginSkillReadResponse,
    doc="A remote catalog plugin's skill (needs the hosted catalog).",
)
PLUGIN_SEARCH = MethodSpec(
    "plugin/search",
    pl.PluginSearchParams,
    pl.PluginSearchResponse,
    experimental=True,
    doc="Search the remote plugin catalog (empty without it).",
)
PLUGIN_SHARE_SAVE = MethodSpec(
    "plugin/share/save",
    ap.PluginShareSaveParams,
    ap.PluginShareSaveResponse,
    doc="Share a plugin (needs the hosted catalog).",
)
PLUGIN_SHARE_UPDATE_TARGETS = MethodSpec(
    "plugin/share/updateTargets",
    ap.PluginShareUpdateTargetsParams,
    ap.PluginShareUpdateTargetsResponse,
    doc="Change who a shared plugin is shared with (needs the hosted catalog).",
)
PLUGIN_SHARE_LIST = MethodSpec(
    "plugin/share/list",
    ap.PluginShareListParams,
    ap.PluginShareListResponse,
    doc="Plugins shared by you (needs the hosted catalog).",
)
PLUGIN_SHARE_CHECKOUT = MethodSpec(
    "plugin/share/checkout",
    ap.PluginShareCheckoutParams,
    ap.PluginShareCheckoutResponse,
    doc="Check a shared plugin out locally (needs the hosted catalog).",
)
PLUGIN_SHARE_DELETE = MethodSpec(
    "plugin/share/delete",
    ap.PluginShareDeleteParams,
    EmptyResult,
    doc="Stop sharing a plugin (needs the hosted catalog).",
)
APP_LIST = MethodSpec("app/list", ap.AppsListParams, ap.AppsListResponse, doc="ChatGPT apps (none).")
APP_READ = MethodSpec("app/read", ap.AppsReadParams, ap.AppsReadResponse, doc="ChatGPT apps by id (none).")
APP_INSTALLED = MethodSpec(
    "app/installed", ap.AppsInstalledParams, ap.AppsInstalledResponse, doc="Installed ChatGPT apps (none)."
)
