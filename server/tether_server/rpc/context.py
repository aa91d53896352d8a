"""What a handler gets besides its params."""

from __future__ import annotations

from dataclasses import dataclass

from tether_protocol.jsonrpc import RequestId
from tether_server.rpc.connection import Connection


@dataclass(frozen=True)
class RequestContext:
    connection: Connection
    request_id: RequestId
    method: str
