"""Shared server state handed to every processor module."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tether_server.config import LoadedConfig
from tether_server.processor.approvals import ApprovalBroker
from tether_server.processor.subscriptions import Subscriptions
from tether_server.rpc.connection import Connection
from tether_server.rpc.dispatcher import Dispatcher
from tether_server.store.base import ThreadStore, TurnRecord
from tether_server.threads.manager import ThreadManager


@dataclass
class ServerState:
    config: LoadedConfig
    home: Path
    store: ThreadStore
    threads: ThreadManager
    subscriptions: Subscriptions
    dispatcher: Dispatcher | None = None
    approvals: ApprovalBroker | None = None
    recovered: dict[str, list[TurnRecord]] = field(default_factory=dict)

    def connections(self) -> list[Connection]:
        """Every open connection (broadcast notifications go to all of them)."""
        return list(self.dispatcher.connections) if self.dispatcher else []

    draining: bool = False
    originator: str | None = None
    version: str = "0.1.0"
    extra: dict[str, object] = field(default_factory=dict)
