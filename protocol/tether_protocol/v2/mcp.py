"""MCP servers: their status, direct calls, elicitations; and the client-provided (dynamic) tools."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tether_protocol.common import JsonValue, WireModel
from tether_protocol.v2.item_parts import DynamicToolCallOutputContentItem

McpServerStartupState = Literal["starting", "ready", "failed", "cancelled"]
McpAuthStatus = Literal["unknown", "unsupported", "notLoggedIn", "bearerToken", "oAuth"]
McpServerConnectionStatus = Literal[
    "notStarted", "starting", "connected", "authenticationRequired", "failed", "cancelled", "disabled"
]


class ListMcpServerStatusParams(WireModel):
    """`mcpServerStatus/list` params."""

    cursor: str | None = None
    limit: int | None = Field(default=None, ge=0)
    detail: Literal["full", "toolsAndAuthOnly"] | None = None
    server_name: str | None = None
    thread_id: str | None = None


class McpServerInfo(WireModel):
    """What an initialized MCP server says about itself."""

    name: str
    version: str
    title: str | None = None
    description: str | None = None
    website_url: str | None = None
    icons: list[JsonValue] | None = None


class McpServerStatus(WireModel):
    """One configured MCP server: its connection, its tools (keyed by name) and resources."""

    name: str
    auth_status: McpAuthStatus
    runtime_status: McpServerConnectionStatus | None = None
    server_info: McpServerInfo | None = None
    server_capabilities: JsonValue = None
    tools: dict[str, JsonValue] = Field(default_factory=dict)
    tools_error: str | None = None
    tool_list_meta: JsonValue = None
    resources: list[JsonValue] = Field(default_factory=list)
    resource_templates: list[JsonValue] = Field(default_factory=list)
    http_origin: str | None = None
    plugin_id: str | None = None


class ListMcpServerStatusResponse(WireModel):
    """`mcpServerStatus/list` result, in configuration-name order."""

    data: list[McpServerStatus]
    next_cursor: str | None = None


class McpServerStatusUpdatedNotification(WireModel):
    """`mcpServer/startupStatus/updated`: a server started, became ready, or failed."""

    name: str
    status: McpServerStartupState
    error: str | None = None
    failure_reason: Literal["reauthenticationRequired"] | None = None
    thread_id: str | None = None


class McpServerRefreshResponse(WireModel):
    """`config/mcpServer/reload` result (empty)."""


class McpServerToolCallParams(WireModel):
    """`mcpServer/tool/call`: a client calls a server's tool itself."""

    thread_id: str
    server: str
    tool: str
    arguments: JsonValue = None
    meta: JsonValue = Field(default=None, alias="_meta")


class McpServerToolCallResponse(WireModel):
    """The server's `CallToolResult`."""

    content: list[JsonValue]
    structured_content: JsonValue = None
    is_error: bool | None = None
    meta: JsonValue = Field(default=None, alias="_meta")


class McpResourceReadParams(WireModel):
    """`mcpServer/resource/read`: read one resource of a server."""

    server: str
    uri: str
    thread_id: str | None = None
    connector_id: str | None = None
    origin_call_id: str | None = None
    target: JsonValue = None
    meta: JsonValue = Field(default=None, alias="_meta")


class McpResourceReadResponse(WireModel):
    """The resource's contents (text or base64 blob entries)."""

    contents: list[JsonValue]
    origin_call_id: str | None = None


class McpToolCallProgressNotification(WireModel):
    """`item/mcpToolCall/progress`: a progress message from a running MCP tool."""

    thread_id: str
    turn_id: str
    item_id: str
    message: str


class McpServerElicitationRequestParams(WireModel):
    """`mcpServer/elicitation/request`: an MCP server asks the user for input (or approval)."""

    thread_id: str
    turn_id: str | None = None
    server_name: str
    mode: str
    message: str
    requested_schema: JsonValue = None
    url: str | None = None
    elicitation_id: str | None = None
    meta: JsonValue = Field(default=None, alias="_meta")


class McpServerElicitationRequestResponse(WireModel):
    """The user's answer: accept (with `content`), decline or cancel."""

    action: Literal["accept", "decline", "cancel"]
    content: JsonValue = None
    meta: JsonValue = Field(default=None, alias="_meta")


class DynamicToolCallParams(WireModel):
    """`item/tool/call`: the model called a tool the client declared on `thread/start`."""

    thread_id: str
    turn_id: str
    call_id: str
    namespace: str | None = None
    tool: str
    arguments: JsonValue


class DynamicToolCallResponse(WireModel):
    """The client's result for a dynamic tool call."""

    content_items: list[DynamicToolCallOutputContentItem]
    success: bool
