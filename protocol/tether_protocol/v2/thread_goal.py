"""Thread goals: an objective the agent keeps working toward across turns, with a token budget."""

from __future__ import annotations

from typing import Literal

from tether_protocol.common import WireModel

ThreadGoalStatus = Literal["active", "paused", "blocked", "usageLimited", "budgetLimited", "complete"]
ThreadGoalMutationOrigin = Literal["user", "automatic"]


class ThreadGoal(WireModel):
    """A thread's goal, its budget and what it has used so far (times in unix seconds)."""

    thread_id: str
    objective: str
    status: ThreadGoalStatus
    token_budget: int | None = None
    tokens_used: int
    time_used_seconds: int
    created_at: int
    updated_at: int


class ThreadGoalGetParams(WireModel):
    """`thread/goal/get` params."""

    thread_id: str


class ThreadGoalGetResponse(WireModel):
    """`thread/goal/get` result: the goal, or null when the thread has none."""

    goal: ThreadGoal | None = None


class ThreadGoalSetParams(WireModel):
    """`thread/goal/set` params: a new goal (with `objective`) or a change to the current one.

    An omitted `tokenBudget` keeps the budget; an explicit null removes it.
    """

    thread_id: str
    objective: str | None = None
    status: ThreadGoalStatus | None = None
    token_budget: int | None = None
    origin: ThreadGoalMutationOrigin | None = None


class ThreadGoalSetResponse(WireModel):
    """`thread/goal/set` result: the goal as stored."""

    goal: ThreadGoal


class ThreadGoalClearParams(WireModel):
    """`thread/goal/clear` params."""

    thread_id: str
    origin: ThreadGoalMutationOrigin | None = None


class ThreadGoalClearResponse(WireModel):
    """`thread/goal/clear` result: whether there was a goal to clear."""

    cleared: bool


class ThreadGoalUpdatedNotification(WireModel):
    """`thread/goal/updated`: the goal changed (a client, the model's goal tools, or a turn's usage)."""

    thread_id: str
    turn_id: str | None = None
    goal: ThreadGoal
