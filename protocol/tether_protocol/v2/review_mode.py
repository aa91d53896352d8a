"""`review/start`: a code review run as a turn of the thread (the TUI's `/review`).

Not to be confused with `review.py`, the approval auto-reviewer's payloads.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from tether_protocol.common import WireModel
from tether_protocol.v2.turn import Turn

ReviewDelivery = Literal["inline"]


class UncommittedChangesReviewTarget(WireModel):
    """The working tree: staged, unstaged and untracked files."""

    type: Literal["uncommittedChanges"] = "uncommittedChanges"


class BaseBranchReviewTarget(WireModel):
    """What the current branch changed since it left `branch` (from their merge base)."""

    type: Literal["baseBranch"] = "baseBranch"
    branch: str


class CommitReviewTarget(WireModel):
    """The changes one commit introduced; `title` labels it in UIs."""

    type: Literal["commit"] = "commit"
    sha: str
    title: str | None = None


class CustomReviewTarget(WireModel):
    """Free-form review instructions."""

    type: Literal["custom"] = "custom"
    instructions: str


ReviewTarget = TypeAliasType(
    "ReviewTarget",
    Annotated[
        UncommittedChangesReviewTarget | BaseBranchReviewTarget | CommitReviewTarget | CustomReviewTarget,
        Field(discriminator="type"),
    ],
)


class ReviewStartParams(WireModel):
    """`review/start` params; the review runs inline on `thread_id` (the only delivery in 0.169)."""

    thread_id: str
    target: ReviewTarget
    delivery: ReviewDelivery | None = None


class ReviewStartResponse(WireModel):
    """`review/start` result: the review's turn, and the thread it runs on."""

    turn: Turn
    review_thread_id: str
