"""Shared server state handed to every processor module, built once by the composition root."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass, field
from pathlib import Path

from tether_server.auth import Credentials
from tether_server.config import LoadedConfig
from tether_server.processor.approvals import ApprovalBroker
from tether_server.processor.command_registry import CommandExecs
from tether_server.processor.dynamic_tools import DynamicToolCalls
from tether_server.processor.subscriptions import Subscriptions
from tether_server.rpc.connection import Connection
from tether_server.store.base import ThreadStore, TurnRecord
from tether_server.threads.manager import ThreadManager
from tether_server.tools.mcp.manager import McpManager


@dataclass
class ServerState:
    config: LoadedConfig
    home: Path
    store: ThreadStore
    threads: ThreadManager
    subscriptions: Subscriptions
    approvals: ApprovalBroker
    open_connections: Set[Connection]
    """The dispatcher's live view of open connections (it adds and removes them)."""
    credentials: Credentials
    """The API key `tether login` / `account/login/start` stored."""
    commands: CommandExecs = field(default_factory=CommandExecs)
    recovered: dict[str, list[TurnRecord]] = field(default_factory=dict)
    # The home, sockets and credential files: no client request reads them (fs/readFile).
    private_paths: list[Path] = field(default_factory=list)
    draining: bool = False
    originator: str | None = None
    version: str = "0.1.0"
    mcp: McpManager | None = None
    dynamic: DynamicToolCalls | None = None

    def connections(self) -> list[Connection]:
        """Every open connection (broadcast notifications go to all of them)."""
        return list(self.open_connections)
