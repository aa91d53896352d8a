"""What a turn's work is given of its thread: a narrow scope, not the whole `ThreadSession`.

The works (`turn_runner.sample_until_done`, `compaction`, `user_shell`, `review_mode`) take a
`WorkScope` and the running turn; only `turn_runner` needs the wider `TurnScope` (approvals,
processes, status). `ThreadSession` satisfies both, and nothing here imports it: the works stay
below the session, with no import cycle in the core.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from tether_server.config.hooks import Hook
from tether_server.config.skills import SkillRoots
from tether_server.core import events as ev
from tether_server.core.agent_tools import AgentPort
from tether_server.core.dynamic_calls import DynamicTools
from tether_server.core.execpolicy import ExecRules
from tether_server.core.goal_tools import GoalPort
from tether_server.core.ids import now_ms, now_s, uuid7
from tether_server.core.items import ThreadItem
from tether_server.core.ports import ApprovalPort, EventSink
from tether_server.core.recorder import ThreadRecorder
from tether_server.core.settings import TurnSettings
from tether_server.core.shell_snapshot import ShellSnapshots
from tether_server.core.toolbox import CommandGate
from tether_server.core.usage import UsageTracker
from tether_server.tools.exec.sessions import ProcessSessions
from tether_server.tools.mcp.manager import McpManager


@dataclass
class SessionDeps:
    """What a session needs from the composition root."""

    provider_for: Any  # Callable[[str], ModelProvider]: provider id → provider
    home: Path | None
    agents_max_bytes: int
    stream_max_retries: int
    context_window: int | None
    gate: CommandGate
    env: Mapping[str, str]
    item_json: Callable[[ThreadItem], dict[str, Any]]  # the projection's: how the store keeps items
    approvals_for: Callable[[str], ApprovalPort] | None = None
    exec_rules: ExecRules | None = None
    auto_compact_token_limit: int | None = None
    allow_login_shell: bool = True
    shell_snapshots: ShellSnapshots | None = None
    private_paths: tuple[Path, ...] = ()
    hidden_paths: tuple[Path, ...] = ()
    web_search: str = "disabled"  # live | cached | disabled: the provider's hosted search
    mcp: McpManager | None = None
    goals: GoalPort | None = None  # the thread goals the model's goal tools read and change
    agents: AgentPort | None = None  # the sub-agents the model's multi-agent tools spawn and wait on
    # The skill roots added at run time (`skills/extraRoots/set`, plugins): `skills/list` and the
    # threads' context read the same object.
    skill_roots: SkillRoots = field(default_factory=SkillRoots)
    # Provider id, model → the window the model's server reports (None: not known yet, or never);
    # set only when no window is configured, and then it wins over the default `context_window`.
    served_window: Callable[[str, str], int | None] | None = None
    # cwd → the configured hooks that run there (trusted, enabled), read afresh for each turn so
    # that trusting a hook takes effect at the next turn; None: no hooks at all.
    hooks: Callable[[Path], Sequence[Hook]] | None = None
    # cwd → the hooks `hooks` found there last, when nothing they were read from changed since
    # (cheap enough for the event loop); None: read them again.
    hooks_unchanged: Callable[[Path], Sequence[Hook] | None] | None = None


@dataclass
class ActiveTurn:
    id: str
    ordinal: int
    started_at: int
    started_mono_ms: int
    pending: list[tuple[list[dict[str, Any]], str | None]] = field(default_factory=list)
    task: asyncio.Task[None] | None = None
    output_schema: dict[str, Any] | None = None
    # Set once the turn may run: a turn/start answer goes out only after the turn is on disk, and
    # the turn's own events must follow that answer.
    released: asyncio.Event = field(default_factory=asyncio.Event)
    kind: str | None = None  # "review" or "compact": a turn that takes no steering input
    steered: asyncio.Event = field(default_factory=asyncio.Event)
    """Set by a steer: the model's response in flight is cut short (see `core/turn.py`)."""


def new_turn(ordinal: int, output_schema: dict[str, Any] | None = None) -> ActiveTurn:
    return ActiveTurn(uuid7(), ordinal, now_s(), now_ms(), output_schema=output_schema)


class WorkScope(Protocol):
    """The thread as a turn's work sees it: its settings and services, its record, its events."""

    settings: TurnSettings
    deps: SessionDeps
    recorder: ThreadRecorder
    sink: EventSink
    usage: UsageTracker
    reference: TurnSettings | None
    """The settings the model last heard about (None: it has not heard the environment yet)."""

    @property
    def thread_id(self) -> str: ...


class TurnScope(WorkScope, Protocol):
    """What running a turn from start to finish needs beyond its work's scope."""

    active: ActiveTurn | None
    status: ev.ThreadStatus
    """The thread's status as its clients were last told (`set_status` changes it)."""
    processes: ProcessSessions
    approved_for_session: set[str]
    dynamic: DynamicTools | None
    hooks_session_started: bool
    """Whether this loaded thread ran its SessionStart hooks already."""

    async def set_status(self, status: ev.ThreadStatus) -> None: ...

    async def set_flags(self, flags: list[str]) -> None: ...

    async def ask(self, ask: ev.ApprovalAsk) -> ev.ApprovalAnswer: ...

    async def ask_user(self, ask: ev.UserInputAsk) -> ev.UserInputAnswer: ...

    def needs_compaction(self) -> bool: ...
