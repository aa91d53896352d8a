"""`thread/start`, `thread/resume`, `thread/fork`: params and the shared session-settings result."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tether_protocol.common import JsonValue, WireModel
from tether_protocol.v2.sandbox import ApprovalsReviewer, AskForApproval, SandboxMode, SandboxPolicy
from tether_protocol.v2.thread import ActivePermissionProfile, Thread
from tether_protocol.v2.turn import CollaborationMode, Personality

MultiAgentMode = Literal["explicitRequestOnly", "proactive"]


class SessionOverrides(WireModel):
    """Overrides shared by start/resume/fork; all optional."""

    model: str | None = None
    model_provider: str | None = None
    service_tier: str | None = None
    cwd: str | None = None
    approval_policy: AskForApproval | None = None
    approvals_reviewer: ApprovalsReviewer | None = None
    sandbox: SandboxMode | None = None
    config: dict[str, JsonValue] | None = None
    base_instructions: str | None = None
    developer_instructions: str | None = None


class ThreadStartParams(SessionOverrides):
    """`thread/start` params."""

    service_name: str | None = None
    personality: Personality | None = None
    ephemeral: bool | None = None
    session_start_source: Literal["startup", "clear"] | None = None
    thread_source: str | None = None
    permissions: str | None = None
    runtime_workspace_roots: list[str] | None = None
    history_mode: Literal["legacy", "paginated"] | None = None
    dynamic_tools: list[JsonValue] | None = None
    experimental_raw_events: bool = False
    mock_experimental_field: str | None = None
    project_id: str | None = None


class ThreadResumeParams(SessionOverrides):
    """`thread/resume` params. `afterSeq` is a Tether extension (replay events after this sequence)."""

    thread_id: str
    personality: Personality | None = None
    exclude_turns: bool = False
    path: str | None = None
    runtime_workspace_roots: list[str] | None = None
    permissions: str | None = None
    after_seq: int | None = None


class ThreadForkParams(SessionOverrides):
    """`thread/fork` params."""

    thread_id: str
    last_turn_id: str | None = None
    ephemeral: bool = False
    thread_source: str | None = None
    exclude_turns: bool = False
    before_turn_id: str | None = None
    path: str | None = None


class ThreadSessionResponse(WireModel):
    """Result shape shared by start/resume/fork: the thread plus its effective settings."""

    thread: Thread
    model: str
    model_provider: str
    service_tier: str | None = None
    disabled_plugin_ids: list[str] = Field(default_factory=list)
    cwd: str
    instruction_sources: list[str] = Field(default_factory=list)
    approval_policy: AskForApproval
    approvals_reviewer: ApprovalsReviewer = "user"
    sandbox: SandboxPolicy
    reasoning_effort: str | None = None
    runtime_workspace_roots: list[str] | None = None
    active_permission_profile: ActivePermissionProfile | None = None
    multi_agent_mode: MultiAgentMode | None = None


class ThreadStartResponse(ThreadSessionResponse):
    """`thread/start` result."""


class ThreadForkResponse(ThreadSessionResponse):
    """`thread/fork` result."""


class ThreadResumeResponse(ThreadSessionResponse):
    """`thread/resume` result: start's shape plus collaboration mode and history cursors."""

    collaboration_mode: CollaborationMode | None = None
    initial_turns_page: JsonValue = None
    turns_backwards_cursor: str | None = None
    items_backwards_cursor: str | None = None
