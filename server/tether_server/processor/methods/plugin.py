"""`plugin/*`: Tether installs no plugins yet (issue 26), so the installed list is empty."""

from __future__ import annotations

from tether_protocol.v2 import workspace as ws
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext


async def plugin_installed(
    state: ServerState, ctx: RequestContext, params: ws.PluginInstalledParams
) -> ws.PluginInstalledResponse:
    return ws.PluginInstalledResponse()
