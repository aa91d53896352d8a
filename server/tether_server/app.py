"""Composition root: config → store → providers → threads → processor → rpc → transports."""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from tether_protocol import server_methods as sm
from tether_protocol.methods import CLIENT_METHODS
from tether_protocol.v2.notifications import ConfigWarningNotification
from tether_server import __version__, log, metrics, telemetry, warm_up
from tether_server.auth import Credentials
from tether_server.config import Config, LoadedConfig, prepare_home
from tether_server.config.model import OtelExporter
from tether_server.core import compaction, shell_snapshot, web_search
from tether_server.core.execpolicy import RULES_DIR, ExecRules
from tether_server.core.ids import now_s
from tether_server.core.session import SessionDeps
from tether_server.errors import ConfigError, SandboxError, TetherError
from tether_server.processor import chatgpt_backend, fleet_news, plugin_runtime, projection, rate_limits
from tether_server.processor.approvals import ApprovalBroker
from tether_server.processor.dynamic_tools import DynamicToolCalls
from tether_server.processor.goals import GoalBook
from tether_server.processor.handlers import UNIMPLEMENTED, build_routes
from tether_server.processor.lifecycle import IdleUnloader
from tether_server.processor.methods import mcp as processor_mcp
from tether_server.processor.methods.hooks import RunningHooks
from tether_server.processor.queues import QueueBook
from tether_server.processor.read_marks import ReadMarks
from tether_server.processor.state import ServerState
from tether_server.processor.subagents import SubAgents
from tether_server.processor.subscriptions import Subscriptions
from tether_server.provider_pool import Providers
from tether_server.providers.base import ModelProvider
from tether_server.providers.served_windows import ServedWindows, chat_servers
from tether_server.rpc.connection import Connection
from tether_server.rpc.dispatcher import Dispatcher
from tether_server.rpc.outgoing import ServerRequests, send_notification
from tether_server.sandbox.hidden import host_hidden_paths, outermost
from tether_server.sandbox.policy import SandboxPolicy
from tether_server.sandbox.probe import SandboxCapability, probe_sandbox
from tether_server.sandbox.runner import PreparedCommand, open_stub_journal
from tether_server.sandbox.runner import prepare as prepare_command
from tether_server.store.base import ThreadStore, TurnRecord
from tether_server.store.sqlite import SqliteThreadStore
from tether_server.threads.handle import ThreadHandle
from tether_server.threads.manager import ThreadManager
from tether_server.threads.ownership import DEFAULT_LEASE_S, Ownership, default_node_id
from tether_server.tools.exec.environment import build_env
from tether_server.tools.mcp.manager import McpManager

if TYPE_CHECKING:
    from tether_server.processor.fleet_forward import FleetForward

_log = log.get("tether.app")
DB_FILE = "tether.sqlite"


def command_env(environ: Mapping[str, str], config: Config) -> dict[str, str]:
    """Environment for spawned commands, from `shell_environment_policy`; never a provider's key."""
    policy = config.shell_environment_policy
    provider_keys = [info.env_key for info in config.model_providers.values() if info.env_key]
    return build_env(
        environ,
        inherit=policy.inherit,
        ignore_default_excludes=policy.ignore_default_excludes,
        exclude=policy.exclude,
        include_only=policy.include_only,
        set_vars=policy.set,
        always_removed=provider_keys,
    )


class SandboxGate:
    """Wraps each command for its thread's sandbox policy, using the capability probed at start."""

    def __init__(self, capability: SandboxCapability, hidden_paths: list[Path]) -> None:
        self.capability = capability
        self.hidden_paths = outermost(hidden_paths)

    def __call__(
        self, policy: dict[str, Any], cwd: Path, workdir: Path, argv: list[str], sandboxed: bool
    ) -> PreparedCommand:
        """Wrap `argv`: `cwd` is the policy cwd (a writable root), `workdir` only where it starts."""
        if not sandboxed:
            return PreparedCommand(argv=list(argv))
        try:
            sandbox_policy = SandboxPolicy.from_wire(policy)
        except TetherError as exc:
            metrics.sandbox_refused()
            raise SandboxError(f"invalid sandbox policy: {exc.message}") from None
        try:
            return prepare_command(
                sandbox_policy, cwd, argv, self.capability, hidden_paths=self.hidden_paths, workdir=workdir
            )
        except SandboxError:
            metrics.sandbox_refused()
            raise


StoreFactory = Callable[[Path], ThreadStore]
"""Home directory → an unopened thread store (the daemon: SQLite in the home; tests: in memory)."""


def sqlite_store(home: Path) -> ThreadStore:
    return SqliteThreadStore(home / DB_FILE)


class ProviderPool(Protocol):
    """Provider id → model provider, and closing what was opened."""

    def __call__(self, provider_id: str) -> ModelProvider: ...

    async def aclose(self) -> None: ...


ProviderPoolFactory = Callable[[LoadedConfig, Credentials], ProviderPool]


@dataclass
class Running:
    """What `App.start` built, for draining and closing."""

    store: ThreadStore
    providers: ProviderPool
    state: ServerState
    unloader: IdleUnloader
    dispatcher: Dispatcher
    windows: ServedWindows


async def recovered_turns(store: ThreadStore) -> dict[str, list[TurnRecord]]:
    """Close the turns a crash left in progress (as interrupted); returns them by thread."""
    recovered: dict[str, list[TurnRecord]] = {}
    for thread_id, turn_id in await store.interrupt_in_progress(now_s()):
        _log.warning("turn.recovered_as_interrupted", thread_id=thread_id, turn_id=turn_id)
        loaded = await store.load_thread(thread_id)
        record = next((t for t in loaded.turns if t.turn_id == turn_id), None) if loaded else None
        if record is not None:
            recovered.setdefault(thread_id, []).append(record)
    return recovered


def fleet_ownership(store: ThreadStore, node_id: str | None, lease_s: float) -> Ownership | None:
    """A daemon on PostgreSQL is a fleet node: it leases the threads it loads. SQLite: none."""
    own = getattr(store, "own_threads", None)
    if own is None:
        return None
    return Ownership(store, own(node_id or default_node_id(), lease_s))


@dataclass
class App:
    """The composition root. `start` builds the graph in dependency order:
    store and providers → connections, server requests, subscriptions → approvals → threads →
    server state → routes → dispatcher."""

    loaded: LoadedConfig
    home: Path
    max_inflight: int = 1024
    max_inflight_per_connection: int = 128
    hidden_paths: list[Path] = field(default_factory=list)
    store_factory: StoreFactory = sqlite_store
    node_id: str | None = None  # a fleet node's id (PostgreSQL store); None: host name and pid
    lease_s: float = DEFAULT_LEASE_S
    fleet_secret: bytes | None = None  # --fleet-secret-file: relay requests to other nodes
    providers_factory: ProviderPoolFactory = Providers
    running: Running | None = None
    # The process ends (os._exit) as soon as `close` returns: a stdio daemon at EOF.
    exits_at_close: bool = False

    async def start(self) -> Dispatcher:
        prepare_home(self.home)
        open_stub_journal(self.home)
        start_telemetry(self.loaded.config)
        store = self.store_factory(self.home)
        # The sandbox probe spawns bwrap; it runs while the database opens.
        probe = asyncio.ensure_future(probe_sandbox())
        try:
            await store.open()
        except BaseException:
            probe.cancel()
            raise
        store_mode = self.loaded.config.cli_auth_credentials_store or "file"
        credentials = await Credentials.open(self.home, store_mode)
        providers = self.providers_factory(self.loaded, credentials)
        capability = await probe
        if capability.available:
            _log.info("sandbox.available", bwrap=str(capability.bwrap_path))
        else:
            _log.warning("sandbox.unavailable", reason=capability.reason, fix=capability.fix)
        connections: set[Connection] = set()
        requests = ServerRequests()
        subscriptions = Subscriptions(lambda: connections)
        loaded_threads: dict[str, ThreadHandle] = {}
        approvals = ApprovalBroker(requests, subscriptions, loaded_threads)
        mcp_servers, plugin_skills = await plugin_runtime.at_start(self.home, self.loaded)
        mcp = McpManager(mcp_servers)
        deps = self._session_deps(providers, capability, approvals)
        deps.mcp = mcp
        windows = ServedWindows(chat_servers(self.loaded, credentials.api_key))
        deps.served_window = None if self.loaded.config.model_context_window else windows
        ownership = fleet_ownership(store, self.node_id, self.lease_s)
        threads = ThreadManager(store, deps, projection.notification, loaded_threads, ownership)
        threads.on_loaded.append(subscriptions.attach)
        threads.on_loaded.append((read_marks := ReadMarks(store, lambda: connections)).attach)
        goals = GoalBook(store, threads, lambda: connections)
        threads.on_loaded.append(goals.attach)
        deps.goals = goals
        state = ServerState(
            self.loaded,
            self.home,
            store,
            threads,
            subscriptions,
            approvals,
            connections,
            credentials,
            recovered=threads.recovered,
            private_paths=[self.home, *self.hidden_paths],
            version=__version__,
            mcp=mcp,
            goals=goals,
            read_marks=read_marks,
            dynamic=DynamicToolCalls(
                requests, subscriptions, float(self.loaded.config.tether.dynamic_tool_timeout_sec)
            ),
        )
        threads.recovered.update(await recovered_turns(store))
        if ownership is not None:
            ownership.start(threads.lose, functools.partial(fleet_news.heard, state))
        processor_mcp.wire_up(state, mcp)
        state.server_requests = requests
        if isinstance(providers, Providers):
            providers.header_listeners.append(functools.partial(rate_limits.headers_seen, state))
            providers.renew_chatgpt = functools.partial(chatgpt_backend.renew_current, state)
        plugin_runtime.wire_up(state, plugin_skills)
        state.queues = QueueBook(store, threads, lambda: state.config.config)
        threads.on_loaded.append(state.queues.attach)
        deps.hooks = hooks = RunningHooks(state)
        deps.hooks_unchanged = hooks.unchanged
        deps.agents = SubAgents(state)
        unloader = IdleUnloader(state, float(self.loaded.config.thread_unload_delay_secs))
        subscriptions.on_idle = unloader.on_idle
        subscriptions.on_subscribe = functools.partial(_on_subscribe, unloader)
        dispatcher = Dispatcher(
            CLIENT_METHODS,
            build_routes(state),
            unimplemented=UNIMPLEMENTED,
            connections=connections,
            server_requests=requests,
            max_inflight=self.max_inflight,
            max_inflight_per_connection=self.max_inflight_per_connection,
            on_initialized=self._after_initialize,
            on_disconnect=state.connection_closed,
            forwarder=_fleet_forward(threads, ownership, self.fleet_secret),
        )
        self.running = Running(store, providers, state, unloader, dispatcher, windows)
        # In the background: a slow or broken server never delays a client; a turn's first request
        # waits for it at most its startup timeout.
        mcp.start()
        return dispatcher

    def _session_deps(
        self, providers: ProviderPool, capability: SandboxCapability, approvals: ApprovalBroker
    ) -> SessionDeps:
        cfg = self.loaded.config
        provider_info = cfg.model_providers.get(cfg.model_provider)
        # Commands never see the daemon's home (database, rules, control socket) nor its
        # credentials; patches never write them.
        private = outermost([self.home, *self.hidden_paths])
        # Nor the host's runtime sockets or the credential stores in the user's home; a patch
        # there needs approval.
        host = host_hidden_paths(os.environ, readable_credentials=cfg.tether.sandbox_readable_credentials)
        return SessionDeps(
            provider_for=providers,
            home=self.home,
            agents_max_bytes=cfg.project_doc_max_bytes,
            stream_max_retries=provider_info.stream_max_retries if provider_info else 5,
            # The window compaction works to (configured, else the default) is the one clients show.
            context_window=cfg.model_context_window or compaction.DEFAULT_CONTEXT_WINDOW,
            auto_compact_token_limit=cfg.model_auto_compact_token_limit,
            allow_login_shell=cfg.allow_login_shell,
            shell_snapshots=shell_snapshot.for_config(self.home, cfg.features, cfg.allow_login_shell),
            gate=SandboxGate(capability, [*private, *host]),
            private_paths=tuple(private),
            hidden_paths=tuple(host),
            env=command_env(os.environ, cfg),
            item_json=projection.item_json,
            approvals_for=approvals.port,
            exec_rules=ExecRules(self.home / RULES_DIR),
            web_search=web_search.resolve_mode(cfg.web_search, cfg.tools),
        )

    async def advertise(self, address: str | None) -> None:
        """Tell the fleet where this node's listener is (None: no listener, nothing relays here)."""
        ownership = self.running.state.threads.ownership if self.running is not None else None
        if ownership is not None:
            await ownership.leases.advertise(address)
            await ownership.hearing()

    async def _after_initialize(self, conn: Connection) -> None:
        state = self.running.state if self.running is not None else None
        if state is not None and state.originator is None:
            # A handshake the stdio front answered did not pass the initialize handler.
            state.originator = conn.client_name
        for warning in self.loaded.warnings:
            note = ConfigWarningNotification(summary=warning, details=None)
            send_notification([conn], sm.CONFIG_WARNING, note)

    async def drain(self) -> None:
        """Refuse new turns, wait for running ones."""
        assert self.running is not None
        state = self.running.state
        state.draining = True
        for handle in state.threads.handles():
            await handle.wait_idle()

    async def close(self) -> None:
        running, self.running = self.running, None
        if running is None:
            return
        running.unloader.shutdown()
        if running.state.chatgpt_login is not None:
            running.state.chatgpt_login.close()
        await running.state.threads.shutdown()
        if running.state.threads.ownership is not None:
            await running.state.threads.ownership.stop()
        if running.state.mcp is not None:
            await running.state.mcp.close()
        await running.providers.aclose()
        await running.windows.aclose()
        if self.exits_at_close and isinstance(running.store, SqliteThreadStore):
            await running.store.close(checkpoint=False)
        else:
            await running.store.close()
        telemetry.shutdown()


def _exporter(value: OtelExporter) -> telemetry.Exporter | None:
    if value == "none":
        return None
    if isinstance(value, str):
        return telemetry.Exporter(value)
    kind, spec = next(iter(value.items()))
    # Said at start rather than found out at the collector: these Codex settings are not applied.
    if spec.protocol == "json":
        _log.warning("otel.protocol_ignored", exporter=kind, sent="binary (protobuf)")
    if spec.tls:
        _log.warning("otel.tls_ignored", exporter=kind, hint="use OTEL_EXPORTER_OTLP_CERTIFICATE and friends")
    return telemetry.Exporter(kind, spec.endpoint, dict(spec.headers), spec.protocol)


def start_telemetry(config: Config) -> None:
    """Start OpenTelemetry export when `[otel]` names an exporter.

    Raises:
        ConfigError: the OpenTelemetry SDK or the chosen exporter is not installed.
    """
    otel = config.otel
    if otel is None:
        return
    traces, logs = _exporter(otel.trace_exporter), _exporter(otel.exporter)
    if traces is None and logs is None:
        return
    try:
        telemetry.configure(
            environment=otel.environment,
            version=__version__,
            traces=traces,
            logs=logs,
        )
    except ImportError as exc:
        raise ConfigError(
            f"[otel] needs the OpenTelemetry SDK: pip install 'tether[otel]' ({exc.name} is missing)",
            key="otel",
        ) from None
    _log.info("otel.started", traces=traces is not None, logs=logs is not None, environment=otel.environment)


def _fleet_forward(
    threads: ThreadManager, ownership: Ownership | None, secret: bytes | None
) -> FleetForward | None:
    if ownership is None or secret is None:
        return None
    # Only a fleet node relays: websockets' client side loads with it, not with every daemon.
    from tether_server.processor.fleet_forward import FleetForward

    return FleetForward(threads, ownership, secret)


def _on_subscribe(unloader: IdleUnloader, thread_id: str) -> None:
    unloader.cancel(thread_id)
    # A client that opens a thread starts a turn next: load the model provider meanwhile.
    warm_up.start_after_request()
