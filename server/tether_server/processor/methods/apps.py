"""`app/*` and `plugin/share/*`: ChatGPT apps and plugin sharing live in OpenAI's hosted services.

Without them (no ChatGPT sign-in; Tether has none) Codex lists no apps, reports every app id asked
for as missing, and refuses each share request with the catalog's sign-in error; Tether answers the
same.
"""

from __future__ import annotations

from pathlib import Path

from tether_protocol.common import EmptyResult
from tether_protocol.v2 import apps as ap
from tether_server.errors import InvalidRequest
from tether_server.processor.methods.plugin_wire import remote_unavailable
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext


def _api_key(state: ServerState) -> bool:
    return state.credentials.api_key() is not None


async def app_list(state: ServerState, ctx: RequestContext, params: ap.AppsListParams) -> ap.AppsListResponse:
    return ap.AppsListResponse()


async def app_read(state: ServerState, ctx: RequestContext, params: ap.AppsReadParams) -> ap.AppsReadResponse:
    return ap.AppsReadResponse(missing_app_ids=list(dict.fromkeys(params.app_ids)))


async def app_installed(
    state: ServerState, ctx: RequestContext, params: ap.AppsInstalledParams
) -> ap.AppsInstalledResponse:
    return ap.AppsInstalledResponse()


async def share_save(
    state: ServerState, ctx: RequestContext, params: ap.PluginShareSaveParams
) -> ap.PluginShareSaveResponse:
    if not Path(params.plugin_path).is_absolute():
        raise InvalidRequest("Invalid request: AbsolutePathBuf deserialized without a base path")
    raise remote_unavailable("save remote plugin share", _api_key(state))


async def share_update_targets(
    state: ServerState, ctx: RequestContext, params: ap.PluginShareUpdateTargetsParams
) -> ap.PluginShareUpdateTargetsResponse:
    raise remote_unavailable("update remote plugin share targets", _api_key(state))


async def share_list(
    state: ServerState, ctx: RequestContext, params: ap.PluginShareListParams
) -> ap.PluginShareListResponse:
    raise remote_unavailable("list remote plugin shares", _api_key(state))


async def share_checkout(
    state: ServerState, ctx: RequestContext, params: ap.PluginShareCheckoutParams
) -> ap.PluginShareCheckoutResponse:
    raise remote_unavailable("checkout plugin share", _api_key(state))


async def share_delete(
    state: ServerState, ctx: RequestContext, params: ap.PluginShareDeleteParams
) -> EmptyResult:
    raise remote_unavailable("delete remote plugin share", _api_key(state))
