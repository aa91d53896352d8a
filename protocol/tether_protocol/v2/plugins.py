"""Plugins and marketplaces: `marketplace/*` and `plugin/*` (installed from local or git marketplaces)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tether_protocol.common import JsonValue, WireModel

PluginListMarketplaceKind = Literal[
    "local", "vertical", "workspace-directory", "shared-with-me", "created-by-me-remote"
]
PluginInstallPolicy = Literal["NOT_AVAILABLE", "AVAILABLE", "INSTALLED_BY_DEFAULT"]
PluginAuthPolicy = Literal["ON_INSTALL", "ON_USE"]
PluginSearchScope = Literal["global", "workspace", "personal"]


class MarketplaceAddParams(WireModel):
    """`marketplace/add` params: a local folder, a git URL or `owner/repo` (GitHub)."""

    source: str
    ref_name: str | None = None
    sparse_paths: list[str] | None = None


class MarketplaceAddResponse(WireModel):
    """`marketplace/add` result: the marketplace's name and the folder it is read from."""

    marketplace_name: str
    installed_root: str
    already_added: bool


class MarketplaceRemoveParams(WireModel):
    """`marketplace/remove` params."""

    marketplace_name: str


class MarketplaceRemoveResponse(WireModel):
    """`marketplace/remove` result: the clone deleted (null for a local marketplace, left in place)."""

    marketplace_name: str
    installed_root: str | None = None


class MarketplaceUpgradeParams(WireModel):
    """`marketplace/upgrade` params: one git marketplace, or every one when no name is given."""

    marketplace_name: str | None = None


class MarketplaceUpgradeErrorInfo(WireModel):
    """A marketplace that could not be upgraded, and why."""

    marketplace_name: str
    message: str


class MarketplaceUpgradeResponse(WireModel):
    """`marketplace/upgrade` result: the marketplaces tried and the roots that changed."""

    selected_marketplaces: list[str] = Field(default_factory=list)
    upgraded_roots: list[str] = Field(default_factory=list)
    errors: list[MarketplaceUpgradeErrorInfo] = Field(default_factory=list)


class MarketplaceInterface(WireModel):
    """How a marketplace is shown."""

    display_name: str | None = None


class MarketplaceLoadErrorInfo(WireModel):
    """A marketplace file that could not be read."""

    marketplace_path: str
    message: str


class PluginInterface(WireModel):
    """A plugin's presentation (`interface` of its manifest; local image paths resolved)."""

    display_name: str | None = None
    short_description: str | None = None
    long_description: str | None = None
    developer_name: str | None = None
    category: str | None = None
    capabilities: list[str] = Field(default_factory=list)
    website_url: str | None = None
    privacy_policy_url: str | None = None
    terms_of_service_url: str | None = None
    default_prompt: list[str] | None = None
    brand_color: str | None = None
    composer_icon: str | None = None
    composer_icon_url: str | None = None
    logo: str | None = None
    logo_dark: str | None = None
    logo_url: str | None = None
    logo_url_dark: str | None = None
    screenshots: list[str] = Field(default_factory=list)
    screenshot_urls: list[str] = Field(default_factory=list)


class PluginSummary(WireModel):
    """One plugin of a marketplace and whether it is installed and enabled."""

    id: str
    remote_plugin_id: str | None = None
    version: str | None = None
    local_version: str | None = None
    name: str
    share_context: JsonValue = None
    source: dict[str, JsonValue]
    installed: bool
    installed_at: int | None = None
    enabled: bool
    install_policy: PluginInstallPolicy
    install_policy_source: str | None = None
    must_show_installation_interstitial: bool | None = None
    auth_policy: PluginAuthPolicy
    availability: Literal["AVAILABLE", "DISABLED_BY_ADMIN"] = "AVAILABLE"
    disabled_reason: str | None = None
    eligible_plan_types: list[str] | None = None
    interface: PluginInterface | None = None
    keywords: list[str] = Field(default_factory=list)


class PluginMarketplaceEntry(WireModel):
    """A marketplace and its plugins."""

    name: str
    path: str | None = None
    interface: MarketplaceInterface | None = None
    plugins: list[PluginSummary]


class PluginListParams(WireModel):
    """`plugin/list` params."""

    cwds: list[str] | None = None
    force_refetch: bool = False
    marketplace_kinds: list[PluginListMarketplaceKind] | None = None


class PluginListResponse(WireModel):
    """`plugin/list` result."""

    marketplaces: list[PluginMarketplaceEntry]
    marketplace_load_errors: list[MarketplaceLoadErrorInfo] = Field(default_factory=list)
    featured_plugin_ids: list[str] = Field(default_factory=list)


class PluginInstalledParams(WireModel):
    """`plugin/installed` params."""

    cwds: list[str] | None = None
    install_suggestion_plugin_names: list[str] | None = None


class PluginInstalledResponse(WireModel):
    """`plugin/installed` result: marketplaces with their installed plugins only."""

    marketplaces: list[PluginMarketplaceEntry]
    marketplace_load_errors: list[MarketplaceLoadErrorInfo] = Field(default_factory=list)


class PluginSkillSummary(WireModel):
    """A skill a plugin brings (`SkillSummary`)."""

    name: str
    description: str
    short_description: str | None = None
    interface: JsonValue = None
    path: str | None = None
    enabled: bool = True


class PluginHookSummary(WireModel):
    """A hook a plugin declares."""

    key: str
    event_name: str


class PluginDetail(WireModel):
    """`plugin/read`'s plugin: its summary and what it contributes."""

    marketplace_name: str
    marketplace_path: str | None = None
    summary: PluginSummary
    share_url: str | None = None
    description: str | None = None
    skills: list[PluginSkillSummary]
    onboarding_skill: PluginSkillSummary | None = None
    hooks: list[PluginHookSummary]
    apps: list[JsonValue] = Field(default_factory=list)
    app_templates: list[JsonValue] = Field(default_factory=list)
    mcp_servers: list[str]
    scheduled_tasks: list[JsonValue] | None = None


class PluginReadParams(WireModel):
    """`plugin/read` params: a plugin of a local marketplace file (or of a remote catalog)."""

    plugin_name: str
    marketplace_path: str | None = None
    remote_marketplace_name: str | None = None


class PluginReadResponse(WireModel):
    """`plugin/read` result."""

    plugin: PluginDetail


class PluginInstallParams(WireModel):
    """`plugin/install` params."""

    plugin_name: str
    marketplace_path: str | None = None
    remote_marketplace_name: str | None = None
    install_attempt_id: str | None = None


class PluginInstallResponse(WireModel):
    """`plugin/install` result."""

    auth_policy: PluginAuthPolicy
    apps_needing_auth: list[JsonValue] = Field(default_factory=list)


class PluginUninstallParams(WireModel):
    """`plugin/uninstall` params: a local id `name@marketplace` (else a remote plugin id)."""

    plugin_id: str


class PluginReconcileParams(WireModel):
    """`plugin/reconcile` params."""

    reason: str | None = None


class PluginReconcileResponse(WireModel):
    """`plugin/reconcile` result: local installs are complete when answered, so nothing changes here."""

    changed_plugins: list[JsonValue] = Field(default_factory=list)
    failed_remote_plugin_ids: list[str] = Field(default_factory=list)
    failed_materialization_remote_plugin_ids: list[str] = Field(default_factory=list)


class PluginSkillReadParams(WireModel):
    """`plugin/skill/read` params (a skill of a remote catalog plugin)."""

    remote_marketplace_name: str
    remote_plugin_id: str
    skill_name: str


class PluginSkillReadResponse(WireModel):
    """`plugin/skill/read` result (never produced without the hosted catalog)."""

    contents: str | None = None


class PluginSearchParams(WireModel):
    """`plugin/search` params (experimental)."""

    search_term: str
    cwds: list[str] | None = None
    cursor: str | None = None
    limit: int | None = Field(default=None, ge=0)
    scope: PluginSearchScope | None = None


class PluginSearchResponse(WireModel):
    """`plugin/search` result: the remote catalog's matches (none without one)."""

    data: list[JsonValue] = Field(default_factory=list)
    next_cursor: str | None = None
