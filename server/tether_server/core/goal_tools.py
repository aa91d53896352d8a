"""The goal tools the model gets: read the thread's goal, start one when asked, mark it done.

The goal itself lives outside the core (the processor keeps it with the thread); a turn reaches it
through `GoalPort`. Names and argument schemas are Codex's, so a model trained on them calls them
as it would there; the descriptions are Tether's own.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from tether_server.core.tool_specs import function_tool
from tether_server.core.toolbox import Tool, ToolArgumentError, ToolCall, ToolContext, ToolOutput

MODEL_STATUSES = ("complete", "blocked", "paused")
"""The only statuses the model may set; resuming and the limits belong to the user and the system."""


class GoalError(Exception):
    """A goal change that cannot be made; its message is what the caller (model or client) is told."""


class GoalPort(Protocol):
    """The thread goals, as the model's tools use them."""

    async def get(self, thread_id: str) -> dict[str, Any] | None: ...

    async def create_for_model(
        self, thread_id: str, turn_id: str, objective: str, budget: int | None
    ) -> dict[str, Any]: ...

    async def set_status_for_model(self, thread_id: str, turn_id: str, status: str) -> dict[str, Any]: ...

    def offered(self) -> bool:
        """Whether goals are on (Codex's `goals` feature): off, the model gets no goal tools."""

    async def turn_finishing(self, thread_id: str, turn_id: str, duration_ms: int) -> None:
        """A turn is about to complete: its usage goes to the goal, announced before `turn/completed`."""


GET_GOAL = function_tool(
    "get_goal",
    "Read this thread's goal: its objective, status, token budget, the tokens and time spent on it "
    "so far, and how many budgeted tokens remain.",
    {},
    [],
)
CREATE_GOAL = function_tool(
    "create_goal",
    "Start a goal for this thread, only when the user (or a system or developer instruction) asks for "
    "one; an ordinary task is not a goal. Give token_budget only when a budget was asked for. Fails "
    "while an unfinished goal exists.",
    {
        "objective": {
            "type": "string",
            "description": "Required. What the goal is to achieve, concretely. Starts a new active goal "
            "when the thread has none, or replaces a goal that is complete.",
        },
        "token_budget": {
            "type": "integer",
            "description": "A positive number of tokens the goal may use. Leave it out unless asked for.",
        },
    },
    ["objective"],
)
UPDATE_GOAL = function_tool(
    "update_goal",
    "Change the status of this thread's goal.\n"
    "`complete`: the objective is achieved and nothing it requires is left to do; not because the "
    "budget runs low or because you are stopping.\n"
    "`blocked`: the same obstacle has stopped progress for three goal turns in a row and only the user "
    "or a change outside can remove it; difficulty or uncertainty alone is not a block.\n"
    "`paused`: only when the user explicitly asked to pause the goal; then stop working on it.\n"
    "Resuming a goal and the budget and usage limits are for the user and the system, not this tool. "
    "When completing a goal that has a budget, tell the user the final token usage from the result.",
    {
        "status": {
            "type": "string",
            "description": "Required. `complete` when achieved, `blocked` after the same impasse for three "
            "goal turns in a row, `paused` only at the user's explicit request.",
            "enum": list(MODEL_STATUSES),
        }
    },
    ["status"],
)


def tool_result(goal: dict[str, Any], *, completed: bool = False) -> str:
    """What a goal tool answers: the goal (no budget member when it has none) and what is left of it."""
    shown = {key: value for key, value in goal.items() if not (key == "tokenBudget" and value is None)}
    budget = goal.get("tokenBudget")
    used = int(goal.get("tokensUsed", 0))
    remaining = max(0, budget - used) if isinstance(budget, int) else None
    report = None
    if completed and isinstance(budget, int):
        report = f"The goal used {used} of its {budget}-token budget."
    result = {"goal": shown, "remainingTokens": remaining, "completionBudgetReport": report}
    return json.dumps(result, separators=(",", ":"))


class GoalTools:
    """The three goal tools, offered after the built-in ones when the thread has goals enabled."""

    def __init__(self, port: GoalPort) -> None:
        self._port = port
        self._tools = {
            "get_goal": Tool("get_goal", GET_GOAL, self._get),
            "create_goal": Tool("create_goal", CREATE_GOAL, self._create),
            "update_goal": Tool("update_goal", UPDATE_GOAL, self._update),
        }

    def specs(self) -> list[dict[str, Any]]:
        return [GET_GOAL, CREATE_GOAL, UPDATE_GOAL]

    def find(self, name: str) -> Tool | None:
        return self._tools.get(name)

    async def _get(self, ctx: ToolContext, call: ToolCall) -> ToolOutput:
        goal = await self._port.get(ctx.thread_id)
        if goal is None:
            return ToolOutput(
                json.dumps({"goal": None, "remainingTokens": None, "completionBudgetReport": None})
            )
        return ToolOutput(tool_result(goal))

    async def _create(self, ctx: ToolContext, call: ToolCall) -> ToolOutput:
        args = call.arguments()
        objective = args.get("objective")
        if not isinstance(objective, str):
            raise ToolArgumentError("create_goal needs an `objective` string")
        budget = args.get("token_budget")
        if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int)):
            raise ToolArgumentError("`token_budget` must be an integer")
        try:
            goal = await self._port.create_for_model(ctx.thread_id, ctx.turn_id, objective, budget)
        except GoalError as exc:
            return ToolOutput(str(exc), success=False)
        return ToolOutput(tool_result(goal))

    async def _update(self, ctx: ToolContext, call: ToolCall) -> ToolOutput:
        status = call.arguments().get("status")
        if status not in MODEL_STATUSES:
            return ToolOutput(
                "update_goal only marks the goal complete, blocked, or (when the user asked) paused; "
                "resuming it and the budget and usage limits are up to the user and the system",
                success=False,
            )
        try:
            goal = await self._port.set_status_for_model(ctx.thread_id, ctx.turn_id, str(status))
        except GoalError as exc:
            return ToolOutput(str(exc), success=False)
        return ToolOutput(tool_result(goal, completed=status == "complete"))
