"""What a handler gets besides its params."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tether_protocol import jsonrpc
from tether_protocol.jsonrpc import RequestId
from tether_server.rpc.connection import Connection
from tether_server.rpc.outgoing import encode


@dataclass
class RequestContext:
    connection: Connection
    request_id: RequestId
    method: str
    answered: bool = False

    def respond(self, result: dict[str, Any]) -> None:
        """Answer now, so that notifications the handler sends next follow the response (Codex order)."""
        if not self.answered:
            self.answered = True
            self.connection.send_frame(encode(jsonrpc.response(self.request_id, result)))
