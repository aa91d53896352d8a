"""`Thread` and the value types it carries (status, git info, source, environments)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, PrivateAttr
from typing_extensions import TypeAliasType

from tether_protocol.common import JsonValue, WireModel
from tether_protocol.v2.turn import Turn

ThreadActiveFlag = Literal["waitingOnApproval", "waitingOnUserInput"]
ThreadHistoryMode = Literal["legacy", "paginated"]


class ThreadStatusNotLoaded(WireModel):
    """Stored but not in memory."""

    type: Literal["notLoaded"] = "notLoaded"


class ThreadStatusIdle(WireModel):
    """Loaded, no turn running."""

    type: Literal["idle"] = "idle"


class ThreadStatusSystemError(WireModel):
    """The last turn failed; sticky until the next turn."""

    type: Literal["systemError"] = "systemError"


class ThreadStatusActive(WireModel):
    """A turn is running; flags say what it waits on."""

    type: Literal["active"] = "active"
    active_flags: list[ThreadActiveFlag] = Field(default_factory=list)


ThreadStatus = TypeAliasType(
    "ThreadStatus",
    Annotated[
        ThreadStatusNotLoaded | ThreadStatusIdle | ThreadStatusSystemError | ThreadStatusActive,
        Field(discriminator="type"),
    ],
)


class GitInfo(WireModel):
    """Git state of the thread's cwd when it was created."""

    sha: str | None = None
    branch: str | None = None
    origin_url: str | None = None


class CustomSessionSource(WireModel):
    """`{"custom": name}`."""

    custom: str


class SubAgentSessionSource(WireModel):
    """`{"subAgent": ...}` (details kept opaque)."""

    sub_agent: JsonValue


SessionSourceKind = Literal["cli", "vscode", "exec", "appServer", "unknown"]
SessionSource = TypeAliasType(
    "SessionSource", SessionSourceKind | CustomSessionSource | SubAgentSessionSource
)


class ThreadSection(WireModel):
    """A user-defined group of threads."""

    id: str
    name: str
    appearance: JsonValue = None


class ThreadEnvironment(WireModel):
    """Where a loaded thread runs (experimental; emitted to everyone)."""

    environment_id: str
    cwd: str
    runtime_workspace_roots: list[str] = Field(default_factory=list)


class Thread(WireModel):
    """A conversation: metadata plus (sometimes) its turns."""

    id: str
    session_id: str
    forked_from_id: str | None = None
    parent_thread_id: str | None = None
    preview: str = ""
    ephemeral: bool = False
    section: ThreadSection | None = None
    section_entered_at: int | None = None
    project_id: str | None = None
    history_mode: ThreadHistoryMode = "paginated"
    model_provider: str
    model: str | None = None
    reasoning_effort: str | None = None
    created_at: int
    updated_at: int
    recency_at: int | None = None
    status: ThreadStatus
    path: str | None = None
    cwd: str
    cli_version: str
    originator: str | None = None
    source: SessionSource = "vscode"
    thread_source: str | None = None
    agent_nickname: str | None = None
    agent_role: str | None = None
    git_info: GitInfo | None = None
    name: str | None = None
    turns: list[Turn] = Field(default_factory=list)
    environments: list[ThreadEnvironment] | None = None
    extra: dict[str, JsonValue] | None = None
    attached_to_thread_id: str | None = None
    can_accept_direct_input: bool | None = None
    daybreak_enabled: bool | None = None

    # Turns already in wire form (items as stored JSON, `orjson.Fragment`s), sent in place of
    # `turns` by the reply that carries this thread (`splice_raw_turns`): a long history is
    # sent without being parsed, validated and dumped again.
    _raw_turns: list[dict[str, Any]] | None = PrivateAttr(default=None)

    def with_raw_turns(self, turns: list[dict[str, Any]]) -> Thread:
        self._raw_turns = turns
        return self


def splice_raw_turns(result: WireModel, wire: dict[str, Any]) -> None:
    """Put the raw turns of `result.thread` (if it has any) into `wire`, its dumped form."""
    thread = getattr(result, "thread", None)
    if isinstance(thread, Thread) and thread._raw_turns is not None:
        wire["thread"]["turns"] = thread._raw_turns


class ActivePermissionProfile(WireModel):
    """The named permission profile in force (experimental)."""

    id: str
    extends: str | None = None
