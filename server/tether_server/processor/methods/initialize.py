"""`initialize`: the handshake's answer (the stdio front may have answered it already)."""

from __future__ import annotations

from tether_protocol.v2.initialize import InitializeParams, InitializeResponse
from tether_server.errors import InvalidRequest
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext
from tether_server.rpc.handshake import HEADER_VALUE, initialize_result


async def initialize(state: ServerState, ctx: RequestContext, params: InitializeParams) -> InitializeResponse:
    name = params.client_info.name
    if not HEADER_VALUE.match(name):
        raise InvalidRequest(f"Invalid clientInfo.name: {name!r}. Must be a valid HTTP header value.")
    if state.originator is None:
        state.originator = name  # process-global, fixed by the first client (as Codex)
    result = initialize_result(
        originator=state.originator,
        client_name=name,
        client_version=params.client_info.version,
        home=state.home,
        version=state.version,
    )
    return InitializeResponse.model_validate(result)
