"""MCP servers over the wire: status, reload, direct calls, and elicitations put to the clients."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from tether_protocol import server_methods as sm
from tether_protocol.common import EmptyParams
from tether_protocol.v2 import mcp as w
from tether_server import private_file
from tether_server.config import load_config
from tether_server.config.plugins import installed_plugin_contributions
from tether_server.errors import ConfigError, InvalidRequest, NotFound
from tether_server.processor import projection
from tether_server.processor.plugin_runtime import servers_with_plugins
from tether_server.processor.state import ServerState
from tether_server.rpc.connection import Connection
from tether_server.rpc.context import RequestContext
from tether_server.rpc.outgoing import send_notification
from tether_server.tools.mcp.calls import CallOrigin, McpCallError
from tether_server.tools.mcp.config import OAUTH_STORE_FILE
from tether_server.tools.mcp.manager import McpManager

if TYPE_CHECKING:
    from tether_server.tools.mcp.connection import ServerConnection

_CONNECTION = {"starting": "starting", "ready": "connected", "failed": "failed", "cancelled": "cancelled"}


def wire_up(state: ServerState, manager: McpManager) -> None:
    """Announce status changes to every client; route elicitations to the calling thread's clients."""

    def status(name: str, startup: str, error: str | None) -> None:
        params = w.McpServerStatusUpdatedNotification(name=name, status=startup, error=error)
        send_notification(state.connections(), sm.MCP_SERVER_STARTUP_STATUS_UPDATED, params)

    async def elicit(
        server: str, origin: CallOrigin, params: dict[str, Any], _limit: float
    ) -> dict[str, Any]:
        request = projection.mcp_elicitation_params(server, origin.thread_id, origin.turn_id, params)
        method, approvals = projection.MCP_ELICITATION, state.approvals
        try:
            # The broker clears the request (serverRequest/resolved) when this is cancelled.
            if isinstance(origin.caller, Connection):
                return await approvals.request_to(origin.caller, origin.thread_id, method, request)
            return await approvals.request(origin.thread_id, method, request)
        except Exception:  # noqa: BLE001 - an error reply cancels the elicitation
            return {"action": "cancel"}

    manager.oauth_store = state.home / OAUTH_STORE_FILE
    # A daemon killed while writing the tokens file left a copy holding them.
    private_file.remove_orphans(manager.oauth_store)
    manager.status_listeners.append(status)
    manager.elicitation_handler = elicit


def _status(conn: ServerConnection, detail: str | None) -> w.McpServerStatus:
    cfg = conn.config
    full = detail != "toolsAndAuthOnly"
    info = conn.server_info
    return w.McpServerStatus(
        name=conn.name,
        auth_status=_auth_status(conn),
        runtime_status="disabled" if conn.state == "disabled" else _CONNECTION.get(conn.state),
        server_info=w.McpServerInfo(name=info.name, version=info.version or "", title=info.title)
        if info
        else None,
        server_capabilities=conn.capabilities.model_dump(mode="json", by_alias=True, exclude_none=True)
        if conn.capabilities and full
        else None,
        tools={t.name: t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in conn.tools},
        tools_error=conn.error if conn.state == "failed" else None,
        resources=[r.model_dump(mode="json", by_alias=True, exclude_none=True) for r in conn.resources]
        if full
        else [],
        http_origin=_origin(cfg.url),
        plugin_id=cfg.plugin_id,
    )


def _auth_status(conn: ServerConnection) -> w.McpAuthStatus:
    cfg = conn.config
    if cfg.bearer_token_env_var:
        return "bearerToken"
    if cfg.url is None:
        return "unsupported"
    from tether_server.tools.mcp.oauth import auth_status

    return auth_status(cfg.oauth_store, cfg.name, cfg.url, conn.error if conn.state == "failed" else None)


def _origin(url: str | None) -> str | None:
    if not url:
        return None
    scheme, _, rest = url.partition("://")
    host = rest.split("/", 1)[0].rsplit("@", 1)[-1]
    return f"{scheme}://{host}"


def _manager(state: ServerState) -> McpManager:
    if state.mcp is None:
        raise InvalidRequest("MCP servers are not available in this daemon")
    return state.mcp


async def status_list(
    state: ServerState, ctx: RequestContext, params: w.ListMcpServerStatusParams
) -> w.ListMcpServerStatusResponse:
    conns = _manager(state).connections()
    if params.server_name is not None:
        conns = [c for c in conns if c.name == params.server_name]
    start = 0
    if params.cursor:
        try:
            start = int(params.cursor)
        except ValueError:
            raise InvalidRequest(f"invalid cursor: {params.cursor}") from None
    limit = params.limit or len(conns) or 1
    page = conns[start : start + limit]
    more = start + limit < len(conns)
    return w.ListMcpServerStatusResponse(
        data=[_status(c, params.detail) for c in page], next_cursor=str(start + limit) if more else None
    )


async def reload(state: ServerState, ctx: RequestContext, params: EmptyParams) -> w.McpServerRefreshResponse:
    manager = _manager(state)
    try:
        fresh = await asyncio.to_thread(load_config, state.home, profile=state.config.profile)
    except ConfigError as exc:
        raise InvalidRequest(f"config.toml: {exc}") from None
    raw = (
        fresh.config.mcp_servers if fresh.config.mcp_servers is not None else state.config.config.mcp_servers
    )
    plugins = await asyncio.to_thread(installed_plugin_contributions, state.home)
    servers, _warnings = servers_with_plugins(raw, plugins)
    ctx.after_response(lambda: manager.reload(servers))
    return w.McpServerRefreshResponse()


def _connection(state: ServerState, server: str) -> ServerConnection:
    conn = _manager(state).get(server)
    if conn is None:
        raise NotFound(f"MCP server not found: {server}")
    return conn


async def tool_call(
    state: ServerState, ctx: RequestContext, params: w.McpServerToolCallParams
) -> w.McpServerToolCallResponse:
    conn = _connection(state, params.server)
    if params.arguments is not None and not isinstance(params.arguments, dict):
        raise InvalidRequest("arguments must be an object")
    try:
        origin = CallOrigin(params.thread_id, None, ctx.connection)
        result = await conn.call_tool(params.tool, params.arguments or {}, origin)
    except McpCallError as exc:
        raise InvalidRequest(str(exc)) from None
    wire = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    return w.McpServerToolCallResponse(
        content=wire.get("content") or [],
        structured_content=wire.get("structuredContent"),
        is_error=bool(result.is_error),
        _meta=wire.get("_meta"),
    )


async def resource_read(
    state: ServerState, ctx: RequestContext, params: w.McpResourceReadParams
) -> w.McpResourceReadResponse:
    conn = _connection(state, params.server)
    try:
        result = await conn.read_resource(params.uri)
    except McpCallError as exc:
        raise InvalidRequest(str(exc)) from None
    contents = [c.model_dump(mode="json", by_alias=True, exclude_none=True) for c in result.contents]
    return w.McpResourceReadResponse(contents=contents)
