"""`Turn`, its status and error types, and the `turn/*` methods."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from tether_protocol.common import JsonValue, WireModel
from tether_protocol.v2.inputs import UserInput
from tether_protocol.v2.items import ThreadItem
from tether_protocol.v2.sandbox import ApprovalsReviewer, AskForApproval, SandboxPolicy

TurnStatus = Literal["inProgress", "completed", "interrupted", "failed"]
TurnItemsView = Literal["notLoaded", "summary", "full"]
ReasoningSummary = Literal["auto", "concise", "detailed", "none"]
Personality = Literal["none", "friendly", "pragmatic"]

CodexErrorKind = Literal[
    "contextWindowExceeded",
    "sessionBudgetExceeded",
    "usageLimitExceeded",
    "rateLimitExceeded",
    "flexUnavailable",
    "serverOverloaded",
    "modelNotFound",
    "policyCapacityUnavailable",
    "inferenceHookDenied",
    "cyberPolicy",
    "misalignmentPolicyViolation",
    "tooManyDenials",
    "internalServerError",
    "unauthorized",
    "badRequest",
    "threadRollbackFailed",
    "sandboxError",
    "other",
]


class HttpStatusDetail(WireModel):
    """The upstream HTTP status, when there was one."""

    http_status_code: int | None = None


class HttpConnectionFailedInfo(WireModel):
    """`{"httpConnectionFailed": {...}}`."""

    http_connection_failed: HttpStatusDetail


class ResponseStreamConnectionFailedInfo(WireModel):
    """`{"responseStreamConnectionFailed": {...}}`."""

    response_stream_connection_failed: HttpStatusDetail


class ResponseStreamDisconnectedInfo(WireModel):
    """`{"responseStreamDisconnected": {...}}`."""

    response_stream_disconnected: HttpStatusDetail


class ResponseTooManyFailedAttemptsInfo(WireModel):
    """`{"responseTooManyFailedAttempts": {...}}`."""

    response_too_many_failed_attempts: HttpStatusDetail


class NonSteerableTurn(WireModel):
    """Which kind of turn refused a steer."""

    turn_kind: Literal["review", "compact"]


class ActiveTurnNotSteerableInfo(WireModel):
    """`{"activeTurnNotSteerable": {"turnKind": ...}}`."""

    active_turn_not_steerable: NonSteerableTurn


CodexErrorInfo = TypeAliasType(
    "CodexErrorInfo",
    CodexErrorKind
    | HttpConnectionFailedInfo
    | ResponseStreamConnectionFailedInfo
    | ResponseStreamDisconnectedInfo
    | ResponseTooManyFailedAttemptsInfo
    | ActiveTurnNotSteerableInfo,
)


class TurnError(WireModel):
    """Why a turn failed (also the payload of the `error` notification)."""

    message: str
    codex_error_info: CodexErrorInfo | None = None
    additional_details: str | None = None
    misalignment: JsonValue = None


class Turn(WireModel):
    """One user→agent exchange inside a thread."""

    id: str
    root_turn_id: str | None = None
    items: list[ThreadItem] = Field(default_factory=list)
    items_view: TurnItemsView = "full"
    status: TurnStatus
    error: TurnError | None = None
    started_at: int | None = None
    completed_at: int | None = None
    duration_ms: int | None = None


class CollaborationSettings(WireModel):
    """Settings of a collaboration mode (snake_case inside, as on the wire)."""

    model: str
    reasoning_effort: str | None = Field(default=None, alias="reasoning_effort")
    developer_instructions: str | None = Field(default=None, alias="developer_instructions")


class CollaborationMode(WireModel):
    """Default or plan mode, with its settings."""

    mode: Literal["plan", "default"]
    settings: CollaborationSettings


class TurnToolOutput(WireModel):
    """Output of a client-side tool handed back with a turn."""

    name: str
    namespace: str | None = None
    output: JsonValue
    retain: bool = False


class TurnEnvironmentParams(WireModel):
    """An environment a turn runs in (Tether has one: `local`)."""

    environment_id: str
    cwd: str
    runtime_workspace_roots: list[str] | None = None


class AdditionalContextEntry(WireModel):
    """A context fragment a client adds to a turn: `untrusted` data or the `application`'s own."""

    kind: Literal["untrusted", "application"]
    value: str
    name: str | None = None


class TurnStartParams(WireModel):
    """`turn/start` params; overrides persist for later turns."""

    thread_id: str
    input: list[UserInput]
    client_user_message_id: str | None = None
    cwd: str | None = None
    approval_policy: AskForApproval | None = None
    approvals_reviewer: ApprovalsReviewer | None = None
    sandbox_policy: SandboxPolicy | None = None
    model: str | None = None
    service_tier: str | None = None
    service_tier_for_turn: str | None = None
    effort: str | None = None
    summary: ReasoningSummary | None = None
    personality: Personality | None = None
    output_schema: JsonValue = None
    disabled_plugin_ids: list[str] | None = None
    turn_trigger: str | None = None
    parent_turn_id: str | None = None
    root_turn_id: str | None = None
    tool_output: TurnToolOutput | None = None
    collaboration_mode: CollaborationMode | None = None
    permissions: str | None = None
    environments: list[TurnEnvironmentParams] | None = None
    additional_context: dict[str, AdditionalContextEntry] | None = None


class TurnStartResponse(WireModel):
    """`turn/start` result: the new (or already active) turn."""

    turn: Turn


class TurnSteerParams(WireModel):
    """`turn/steer` params: more input for the active turn."""

    thread_id: str
    input: list[UserInput]
    expected_turn_id: str
    client_user_message_id: str | None = None


class TurnSteerResponse(WireModel):
    """`turn/steer` result."""

    turn_id: str


class TurnInterruptParams(WireModel):
    """`turn/interrupt` params."""

    thread_id: str
    turn_id: str


class TurnInterruptResponse(WireModel):
    """`turn/interrupt` result (`{}`)."""
