"""`app/*` (ChatGPT connectors) and `plugin/share/*` (the hosted plugin catalog).

Both live in OpenAI's hosted services; without them Codex lists no apps and refuses every share
request, and Tether answers the same way.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tether_protocol.common import JsonValue, WireModel

PluginSharePrincipalType = Literal["user", "group", "workspace"]
PluginShareTargetRole = Literal["reader", "editor"]
PluginShareDiscoverability = Literal["LISTED", "UNLISTED", "PRIVATE"]


class AppsListParams(WireModel):
    """`app/list` params."""

    cursor: str | None = None
    force_refetch: bool = False
    limit: int | None = Field(default=None, ge=0)
    thread_id: str | None = None


class AppsListResponse(WireModel):
    """`app/list` result."""

    data: list[JsonValue] = Field(default_factory=list)
    next_cursor: str | None = None


class AppsReadParams(WireModel):
    """`app/read` params."""

    app_ids: list[str]
    include_tools: bool = False
    thread_id: str | None = None


class AppsReadResponse(WireModel):
    """`app/read` result: the apps found and the ids that were not (deduplicated, in order)."""

    apps: list[JsonValue] = Field(default_factory=list)
    missing_app_ids: list[str] = Field(default_factory=list)


class AppsInstalledParams(WireModel):
    """`app/installed` params."""

    force_refresh: bool = False
    thread_id: str | None = None


class AppsInstalledResponse(WireModel):
    """`app/installed` result."""

    apps: list[JsonValue] = Field(default_factory=list)


class PluginShareTarget(WireModel):
    """Someone a plugin is shared with."""

    principal_id: str
    principal_type: PluginSharePrincipalType
    role: PluginShareTargetRole


class PluginShareSaveParams(WireModel):
    """`plugin/share/save` params."""

    plugin_path: str
    remote_plugin_id: str | None = None
    discoverability: PluginShareDiscoverability | None = None
    share_targets: list[PluginShareTarget] | None = None


class PluginShareSaveResponse(WireModel):
    """`plugin/share/save` result (never produced without the hosted catalog)."""

    remote_plugin_id: str
    share_url: str
    can_publish_to_workspace: bool | None = None


class PluginShareUpdateTargetsParams(WireModel):
    """`plugin/share/updateTargets` params."""

    remote_plugin_id: str
    discoverability: Literal["UNLISTED", "PRIVATE", "LISTED"]
    share_targets: list[PluginShareTarget]


class PluginShareUpdateTargetsResponse(WireModel):
    """`plugin/share/updateTargets` result (never produced without the hosted catalog)."""

    discoverability: PluginShareDiscoverability
    principals: list[JsonValue] = Field(default_factory=list)


class PluginShareListParams(WireModel):
    """`plugin/share/list` params."""


class PluginShareListResponse(WireModel):
    """`plugin/share/list` result (never produced without the hosted catalog)."""

    data: list[JsonValue] = Field(default_factory=list)


class PluginShareCheckoutParams(WireModel):
    """`plugin/share/checkout` params."""

    remote_plugin_id: str


class PluginShareCheckoutResponse(WireModel):
    """`plugin/share/checkout` result (never produced without the hosted catalog)."""

    marketplace_name: str
    marketplace_path: str
    plugin_id: str
    plugin_name: str
    plugin_path: str
    remote_plugin_id: str
    remote_version: str | None = None


class PluginShareDeleteParams(WireModel):
    """`plugin/share/delete` params."""

    remote_plugin_id: str
