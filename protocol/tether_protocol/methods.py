"""THE method table: every wire method Tether knows, with its types.

Dispatch, schema export, the SDK and the docs all read these three tables; adding a method means
adding its models and one entry here (and one handler in the server's processor).
"""

from __future__ import annotations

from tether_protocol.spec import MethodSpec, NotificationSpec, ServerRequestSpec
from tether_protocol.v2.initialize import InitializeParams, InitializeResponse

_client: list[MethodSpec] = [
    MethodSpec("initialize", InitializeParams, InitializeResponse, doc="Handshake; once per connection."),
]

_notifications: list[NotificationSpec] = []

_server_requests: list[ServerRequestSpec] = []

CLIENT_METHODS: dict[str, MethodSpec] = {m.name: m for m in _client}
SERVER_NOTIFICATIONS: dict[str, NotificationSpec] = {n.name: n for n in _notifications}
SERVER_REQUESTS: dict[str, ServerRequestSpec] = {r.name: r for r in _server_requests}
