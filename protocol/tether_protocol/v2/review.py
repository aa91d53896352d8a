"""Approval auto-review (`approvals_reviewer = "auto_review"`): the `item/autoApprovalReview/*` payloads.

Codex marks these shapes unstable; Tether emits the two action kinds its tools can ask for
(a command, a patch).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from tether_protocol.common import WireModel

GuardianApprovalReviewStatus = Literal["inProgress", "approved", "denied", "timedOut", "aborted"]
GuardianRiskLevel = Literal["low", "medium", "high", "critical"]
GuardianUserAuthorization = Literal["unknown", "low", "medium", "high"]
GuardianCommandSource = Literal["shell", "unifiedExec"]
AutoReviewDecisionSource = Literal["agent"]


class CommandGuardianApprovalReviewAction(WireModel):
    """A command the agent wants to run."""

    type: Literal["command"] = "command"
    command: str
    cwd: str
    source: GuardianCommandSource


class ApplyPatchGuardianApprovalReviewAction(WireModel):
    """A patch the agent wants to apply, by the files it touches."""

    type: Literal["applyPatch"] = "applyPatch"
    cwd: str
    files: list[str]


class McpToolCallGuardianApprovalReviewAction(WireModel):
    """An MCP tool the agent wants to call."""

    type: Literal["mcpToolCall"] = "mcpToolCall"
    server: str
    tool_name: str
    tool_title: str | None = None
    connector_id: str | None = None
    connector_name: str | None = None


GuardianApprovalReviewAction = TypeAliasType(
    "GuardianApprovalReviewAction",
    Annotated[
        CommandGuardianApprovalReviewAction
        | ApplyPatchGuardianApprovalReviewAction
        | McpToolCallGuardianApprovalReviewAction,
        Field(discriminator="type"),
    ],
)


class GuardianApprovalReview(WireModel):
    """Where a review stands and, once decided, its verdict."""

    status: GuardianApprovalReviewStatus
    risk_level: GuardianRiskLevel | None = None
    rationale: str | None = None
    user_authorization: GuardianUserAuthorization | None = None


class ItemGuardianApprovalReviewStartedNotification(WireModel):
    """`item/autoApprovalReview/started`."""

    thread_id: str
    turn_id: str
    review_id: str
    target_item_id: str | None = None
    started_at_ms: int
    action: GuardianApprovalReviewAction
    review: GuardianApprovalReview


class ItemGuardianApprovalReviewCompletedNotification(ItemGuardianApprovalReviewStartedNotification):
    """`item/autoApprovalReview/completed`."""

    completed_at_ms: int
    decision_source: AutoReviewDecisionSource
