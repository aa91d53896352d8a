"""`mcpServer/oauth/login` and `mcpServer/oauthLogin/completed`, as Codex 0.169.0 does them.

The answer carries the authorization URL and a login id; the sign-in goes on in the background
until the browser comes back to the loopback callback (or the time runs out). Then every client
hears `mcpServer/oauthLogin/completed`, and a successful sign-in reconnects that server so its
tools are there for the next turn.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from tether_protocol import server_methods as sm
from tether_protocol.v2 import account_extras as ax
from tether_server import log
from tether_server.core.ids import uuid7
from tether_server.errors import InternalError, InvalidRequest
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext
from tether_server.rpc.outgoing import send_notification
from tether_server.tools.mcp.config import OAUTH_STORE_FILE

if TYPE_CHECKING:
    from tether_server.tools.mcp.oauth_login import Login

_log = log.get("tether.mcp.oauth")

OAUTH_HTTP_ONLY = "OAuth login is only supported for streamable HTTP servers."
NO_MCP_SERVER = "No MCP server named '{name}' found."
LOGIN_FAILED = "failed to login to MCP server '{name}': {why}"
DEFAULT_TIMEOUT_S = 300
# Sign-ins waiting for their browser: held here so the event loop does not drop them.
_PENDING: set[asyncio.Task[None]] = set()


def _server(state: ServerState, name: str) -> tuple[str, dict[str, str]]:
    """The server's URL and HTTP headers; refused as Codex refuses them."""
    conn = state.mcp.get(name) if state.mcp is not None else None
    if conn is not None:
        if conn.config.url is None:
            raise InvalidRequest(OAUTH_HTTP_ONLY)
        return conn.config.url, dict(conn.config.http_headers)
    servers = state.config.config.mcp_servers
    entry: Any = servers.get(name) if isinstance(servers, dict) else None
    if not isinstance(entry, dict):
        raise InvalidRequest(NO_MCP_SERVER.format(name=name))
    url = entry.get("url")
    if not isinstance(url, str):
        raise InvalidRequest(OAUTH_HTTP_ONLY)
    headers = entry.get("http_headers")
    return url, {str(k): str(v) for k, v in headers.items()} if isinstance(headers, dict) else {}


async def mcp_oauth_login(
    state: ServerState, ctx: RequestContext, params: ax.McpServerOauthLoginParams
) -> ax.McpServerOauthLoginResponse:
    url, headers = _server(state, params.name)
    # Codex takes any timeout, zero and negative ones too; the browser gets at least a second.
    timeout = DEFAULT_TIMEOUT_S if params.timeout_secs is None else max(1, params.timeout_secs)
    # The mcp SDK's OAuth client (~1 s of imports on a busy machine) loads with the first sign-in,
    # not with the daemon.
    from tether_server.tools.mcp.oauth_login import LoginFailed, start

    try:
        login = await start(state.home / OAUTH_STORE_FILE, params.name, url, headers, params.scopes, timeout)
    except LoginFailed as exc:
        raise InternalError(LOGIN_FAILED.format(name=params.name, why=exc)) from None
    login_id = uuid7()
    ctx.after_response(lambda: _follow(state, params.name, params.thread_id, login_id, login))
    return ax.McpServerOauthLoginResponse(authorization_url=login.authorization_url, login_id=login_id)


def _follow(state: ServerState, name: str, thread_id: str | None, login_id: str, login: Login) -> None:
    task = asyncio.create_task(
        _finish(state, name, thread_id, login_id, login), name=f"mcp-oauth-done:{name}"
    )
    _PENDING.add(task)
    task.add_done_callback(_PENDING.discard)


async def _finish(state: ServerState, name: str, thread_id: str | None, login_id: str, login: Login) -> None:
    why = await login.finished
    _log.info("mcp.oauth_login", server=name, success=why is None, error=why)
    done = ax.McpServerOauthLoginCompletedNotification(
        name=name, success=why is None, thread_id=thread_id, login_id=login_id, error=why
    )
    if why is None and state.mcp is not None:
        await state.mcp.restart(name)
    send_notification(state.connections(), sm.MCP_SERVER_OAUTH_LOGIN_COMPLETED, done)
