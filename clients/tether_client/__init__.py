"""Tether Python SDK: an async (and a blocking) client of the Tether/Codex app-server protocol.

Example:
    async with await Client.spawn() as client:
        started = await client.start_thread(cwd="/repo")
        async for note in client.run_turn(started.thread.id, "Fix the failing test"):
            print(note.method)
"""

from tether_client.approvals import DEFERRED, ApprovalHandler, Deferred, accept_all, decline_all, safe_default
from tether_client.client import Client
from tether_client.errors import ForeignListener, RpcError, TetherClientError, TransportClosed
from tether_client.messages import Notification, ServerRequest
from tether_client.subscription import Subscription
from tether_client.sync import SyncClient, SyncTurn
from tether_client.transport import StdioTransport, Transport, default_app_server_command
from tether_client.turns import TurnInput, TurnStream

__all__ = [
    "DEFERRED",
    "ApprovalHandler",
    "Client",
    "Deferred",
    "ForeignListener",
    "Notification",
    "RpcError",
    "ServerRequest",
    "StdioTransport",
    "Subscription",
    "SyncClient",
    "SyncTurn",
    "TetherClientError",
    "Transport",
    "TransportClosed",
    "TurnInput",
    "TurnStream",
    "accept_all",
    "decline_all",
    "default_app_server_command",
    "safe_default",
]
