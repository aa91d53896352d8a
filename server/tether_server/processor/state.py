"""Shared server state handed to every processor module, built once by the composition root."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tether_server.auth import Credentials
from tether_server.config import LoadedConfig
from tether_server.config.features import CATALOGUE
from tether_server.config.features import enabled as feature_enabled
from tether_server.config.hook_sources import ExtraLayers
from tether_server.processor.approvals import ApprovalBroker
from tether_server.processor.command_registry import CommandExecs
from tether_server.processor.dynamic_tools import DynamicToolCalls
from tether_server.processor.file_jobs import FileJobs
from tether_server.processor.fs_watch import FsWatches
from tether_server.processor.fuzzy_sessions import FuzzySessions
from tether_server.processor.goals import GoalBook
from tether_server.processor.queues import QueueBook
from tether_server.processor.read_marks import ReadMarks
from tether_server.processor.skills_watch import SkillsWatch
from tether_server.processor.subscriptions import Subscriptions
from tether_server.rpc.connection import Connection
from tether_server.rpc.outgoing import ServerRequests
from tether_server.store.base import ThreadStore, TurnRecord
from tether_server.threads.manager import ThreadManager
from tether_server.tools.mcp.manager import McpManager

if TYPE_CHECKING:  # a sign-in's modules load with account/login/start, not with the daemon (httpx)
    from tether_server.auth.chatgpt_login import BrowserLogin
    from tether_server.auth.device_code import DeviceCodeLogin

_GOALS = next(feature for feature in CATALOGUE if feature.name == "goals")


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
    # What a connection holds beside its subscriptions; each ends in `connection_closed`.
    commands: CommandExecs = field(default_factory=CommandExecs)
    watches: FsWatches = field(default_factory=FsWatches)
    fuzzy: FuzzySessions = field(default_factory=FuzzySessions)
    file_jobs: FileJobs = field(default_factory=FileJobs)
    recovered: dict[str, list[TurnRecord]] = field(default_factory=dict)
    # `experimentalFeature/enablement/set`: process-wide, never written (Codex keeps it in memory).
    feature_enablement: dict[str, bool] = field(default_factory=dict)
    # The home, sockets and credential files: no client request reads them (fs/readFile).
    private_paths: list[Path] = field(default_factory=list)
    draining: bool = False
    originator: str | None = None
    version: str = "0.1.0"
    mcp: McpManager | None = None
    dynamic: DynamicToolCalls | None = None
    goals: GoalBook | None = None
    read_marks: ReadMarks | None = None  # told when a client sets a thread's read marker
    queues: QueueBook | None = None  # `thread/queue/*`: made at start, once the state exists
    chatgpt_login: BrowserLogin | DeviceCodeLogin | None = None  # the pending ChatGPT sign-in, if any
    server_requests: ServerRequests | None = None  # for `account/chatgptAuthTokens/refresh`
    skills_watch: SkillsWatch | None = None  # made by the first `skills/*` request that watches
    # More places hooks come from besides config.toml and trusted projects (installed plugins):
    # each maps a working directory to hook layers; hooks/list and the turns read them alike.
    hook_sources: list[ExtraLayers] = field(default_factory=list)
    # The files those sources are read from: a turn's hooks are scanned again when one changes.
    hook_source_files: list[Path] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.goals is not None:
            self.goals.enabled = self.goals_on

    def goals_on(self) -> bool:
        """Codex's `goals` feature (stable, on unless `features.goals = false`), as configured now."""
        return feature_enabled(_GOALS, self.config.config.features, self.feature_enablement)

    async def connection_closed(self, conn: Connection) -> None:
        """The one disconnect path: everything the connection held ends here."""
        self.subscriptions.drop_connection(conn)
        if self.dynamic is not None:
            self.dynamic.connection_closed(conn)
        self.watches.connection_closed(conn)
        self.fuzzy.connection_closed(conn)
        if self.skills_watch is not None:
            self.skills_watch.connection_closed(conn)
        await self.commands.close_connection(conn.id)

    def connections(self) -> list[Connection]:
        """Every open connection (broadcast notifications go to all of them)."""
        return list(self.open_connections)
