"""Thread goals: kept with the thread in the store, changed by clients and by the model, and driving
the agent while active.

As Codex 0.169.0 (observed on the binary): a goal accrues the tokens (`last.totalTokens`) of every
model response that completes while it is `active`, and the time of those turns; as a turn ends
the thread hears `thread/goal/updated` with that turn's id, before the thread turns idle and
before `turn/completed`. A completed turn leaves an
`active` goal working: a new turn starts at once with a note about the goal (the budget, what is
used, what remains) and no user message. Once the tokens used reach the budget the goal becomes
`budgetLimited` and no further turn starts. A goal set `active` on an idle loaded thread starts
such a turn after the answer.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Callable, Iterable
from typing import Any

from tether_protocol import server_methods as sm
from tether_protocol.spec import WireParams
from tether_protocol.v2.notifications import ThreadGoalClearedNotification
from tether_protocol.v2.thread_goal import ThreadGoalUpdatedNotification
from tether_server import log
from tether_server.core.goal_tools import GoalError
from tether_server.rpc.connection import Connection
from tether_server.rpc.outgoing import send_notification
from tether_server.store.base import Batch, StoreError, ThreadStore
from tether_server.threads.handle import ThreadEvent, ThreadHandle
from tether_server.threads.manager import ThreadManager

_log = log.get(__name__)

OBJECTIVE_MAX_CHARS = 4000
KEEP: Any = object()
"""`set`'s budget argument when the client left `tokenBudget` out (null removes the budget)."""


def check_objective(objective: str) -> None:
    """Codex's checks and words for an objective."""
    if not objective.strip():
        raise GoalError("goal objective must not be empty")
    if len(objective) > OBJECTIVE_MAX_CHARS:
        raise GoalError(f"goal objective must be at most {OBJECTIVE_MAX_CHARS} characters")


def check_budget(budget: int | None) -> None:
    if budget is not None and budget <= 0:
        raise GoalError("goal budgets must be positive when provided")


def new_goal(thread_id: str, objective: str, status: str, budget: int | None) -> dict[str, Any]:
    now = int(time.time())
    return {
        "threadId": thread_id,
        "objective": objective,
        "status": status,
        "tokenBudget": budget,
        "tokensUsed": 0,
        "timeUsedSeconds": 0,
        "createdAt": now,
        "updatedAt": now,
    }


def continuation_note(goal: dict[str, Any]) -> str:
    """What a goal turn tells the model (Tether's own words)."""
    budget = goal.get("tokenBudget")
    used = int(goal.get("tokensUsed", 0))
    if isinstance(budget, int):
        spend = f"Tokens used so far: {used} of a {budget}-token budget ({max(0, budget - used)} left)."
    else:
        spend = f"Tokens used so far: {used} (no budget set)."
    return (
        '<goal_context origin="tether">\n'
        "This thread has an active goal, and this turn continues it; no new user message came in.\n"
        f"Objective: {goal.get('objective', '')}\n"
        f"{spend}\n"
        "Look at the current state of the workspace before trusting earlier turns, then take the next "
        "concrete step toward the whole objective (not an easier part of it). Call get_goal for the "
        "goal's full state. When the objective is achieved and checked, call update_goal with status "
        "`complete`; if the same obstacle has stopped you for three goal turns in a row, with "
        "`blocked`. Otherwise end the turn with the goal still active and the work will go on.\n"
        "</goal_context>"
    )


class GoalBook:
    """The goals of every thread: the `thread/goal/*` methods, the model's goal tools
    (`core.goal_tools.GoalPort`) and, attached to each loaded thread, usage and continuation."""

    def __init__(
        self, store: ThreadStore, threads: ThreadManager, connections: Callable[[], Iterable[Connection]]
    ) -> None:
        self._store = store
        self._threads = threads
        self._connections = connections
        self._lock = asyncio.Lock()
        self._accrued: dict[str, int] = {}  # thread -> tokens accrued in its running turn
        self._tasks: set[asyncio.Task[None]] = set()
        self._ended_by_call: set[str] = set()  # threads whose goal a model call just moved off active
        self._created_by_call: set[str] = set()  # threads whose goal a model call just created
        self.enabled: Callable[[], bool] = lambda: True
        """The `goals` feature (set by the composition root from the config)."""
        # Loaded threads known to have no goal, by the handle that was loaded then: most threads
        # have none, and every turn asked the store three times (usage, turn end, continuation).
        # A thread loaded anew (a restart, a fleet takeover) is asked again.
        self._none: weakref.WeakValueDictionary[str, ThreadHandle] = weakref.WeakValueDictionary()

    # ---- reading and writing ---------------------------------------------------------------------

    async def get(self, thread_id: str) -> dict[str, Any] | None:
        return await self._goal(thread_id)

    async def _goal(self, thread_id: str) -> dict[str, Any] | None:
        handle = self._threads.get(thread_id)
        if handle is not None and self._none.get(thread_id) is handle:
            return None
        goal = await self._store.get_goal(thread_id)
        if goal is None and handle is not None:
            self._none[thread_id] = handle
        return goal

    async def set(
        self,
        thread_id: str,
        objective: str | None,
        status: str | None,
        budget: Any = KEEP,
    ) -> dict[str, Any]:
        """`thread/goal/set`: a new goal (active unless told) or a change to the current one; the
        caller announces it (`announce`) once it has answered."""
        if objective is not None:
            check_objective(objective)
        if budget is not KEEP:
            check_budget(budget)
        async with self._lock:
            goal = await self._goal(thread_id)
            if goal is None:
                if objective is None:
                    raise GoalError(f"cannot update goal for thread {thread_id}: no goal exists")
                goal = new_goal(thread_id, objective, status or "active", None if budget is KEEP else budget)
            else:
                goal = dict(goal)
                if objective is not None:
                    goal["objective"] = objective
                if status is not None:
                    goal["status"] = status
                if budget is not KEEP:
                    goal["tokenBudget"] = budget
                goal["updatedAt"] = int(time.time())
            await self._write(thread_id, goal)
        return goal

    async def clear(self, thread_id: str) -> bool:
        async with self._lock:
            if await self._goal(thread_id) is None:
                return False
            await self._write(thread_id, None)
        return True

    def announce_cleared(self, thread_id: str) -> None:
        """`thread/goal/cleared` goes to every client (protocol §9: a broadcast notification)."""
        cleared = ThreadGoalClearedNotification(thread_id=thread_id)
        send_notification(self._connections(), sm.THREAD_GOAL_CLEARED, cleared)

    async def _write(self, thread_id: str, goal: dict[str, Any] | None) -> None:
        self._none.pop(thread_id, None)
        if await self._store.put_goal(thread_id, goal):
            return
        handle = self._threads.get(thread_id)
        if handle is None or handle.ephemeral:
            raise GoalError(f"thread not found: {thread_id}")
        # A thread started but with no turn yet is not on disk; the goal needs it there (unlisted
        # still: a thread is listed once it has a preview).
        await self._store.commit(Batch(thread=handle.record))
        await self._store.put_goal(thread_id, goal)

    def announce(self, thread_id: str, goal: dict[str, Any], turn_id: str | None) -> None:
        params: WireParams[ThreadGoalUpdatedNotification] = WireParams(
            {"threadId": thread_id, "turnId": turn_id, "goal": goal}
        )
        handle = self._threads.get(thread_id)
        if handle is not None:
            handle.publish(sm.THREAD_GOAL_UPDATED, params)
        else:
            send_notification(self._connections(), sm.THREAD_GOAL_UPDATED, params)

    # ---- the model's tools (GoalPort) ------------------------------------------------------------

    async def create_for_model(
        self, thread_id: str, turn_id: str, objective: str, budget: int | None
    ) -> dict[str, Any]:
        check_objective(objective)
        check_budget(budget)
        async with self._lock:
            current = await self._goal(thread_id)
            if current is not None and current.get("status") != "complete":
                raise GoalError(
                    "this thread already has a goal that is not complete; finish it before creating another"
                )
            goal = new_goal(thread_id, objective, "active", budget)
            await self._write(thread_id, goal)
            self._created_by_call.add(thread_id)
        self.announce(thread_id, goal, turn_id)
        return goal

    async def set_status_for_model(self, thread_id: str, turn_id: str, status: str) -> dict[str, Any]:
        async with self._lock:
            goal = await self._goal(thread_id)
            if goal is None:
                raise GoalError("this thread has no goal to update")
            if goal.get("status") == "active" and status != "active":
                self._ended_by_call.add(thread_id)
            goal = {**goal, "status": status, "updatedAt": int(time.time())}
            await self._write(thread_id, goal)
        self.announce(thread_id, goal, turn_id)
        return goal

    # ---- usage and continuation ------------------------------------------------------------------

    def attach(self, handle: ThreadHandle) -> None:
        if not handle.ephemeral:
            if handle.created_here:  # a new thread has no goal: its turns need not read one
                self._none[handle.thread_id] = handle
            handle.add_listener(self._on_event)

    def _on_event(self, event: ThreadEvent) -> None:
        # The feature is looked up only for the two events that matter: every delta comes here too.
        if event.spec is not sm.THREAD_TOKEN_USAGE_UPDATED and event.spec is not sm.TURN_COMPLETED:
            return
        if not self.enabled():
            return  # as Codex with `features.goals = false`: a stored goal neither counts nor drives
        if event.spec is sm.THREAD_TOKEN_USAGE_UPDATED:
            last = event.params.get("tokenUsage", {}).get("last", {})
            tokens = int(last.get("totalTokens", 0))
            self._spawn(self._accrue(event.thread_id, tokens))
        elif event.spec is sm.TURN_COMPLETED:
            turn = event.params.get("turn", {})
            if turn.get("status") == "completed":
                self._spawn(self._continue(event.thread_id))

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _accrue(self, thread_id: str, tokens: int) -> None:
        try:
            async with self._lock:
                goal = await self._goal(thread_id)
                # The response whose tool call ended the goal still counts (Codex counts a response
                # before its calls run; Tether runs them as they stream, before its usage is known).
                ended_by_call = thread_id in self._ended_by_call
                self._ended_by_call.discard(thread_id)
                if thread_id in self._created_by_call:
                    self._created_by_call.discard(thread_id)
                    return  # nor does the response that created it
                if goal is None or (goal.get("status") != "active" and not ended_by_call):
                    return
                used = int(goal["tokensUsed"]) + tokens
                goal = {**goal, "tokensUsed": used, "updatedAt": int(time.time())}
                budget = goal.get("tokenBudget")
                if goal["status"] == "active" and isinstance(budget, int) and used >= budget:
                    goal["status"] = "budgetLimited"
                await self._store.put_goal(thread_id, goal)
                self._accrued[thread_id] = self._accrued.get(thread_id, 0) + tokens
        except StoreError as exc:  # a background write: logged, never raised into the loop
            _log.warning("goals.store_failed", thread_id=thread_id, error=str(exc))

    def offered(self) -> bool:
        return self.enabled()

    async def turn_finishing(self, thread_id: str, turn_id: str, duration_ms: int) -> None:
        """`GoalPort.turn_finishing`: the turn's time joins the goal that worked in it, and the goal
        is announced with the turn's id, before the thread goes idle and the turn completes."""
        # The usage of the turn's last response is still being added (a listener's task).
        await asyncio.gather(
            *[t for t in self._tasks if t is not asyncio.current_task()], return_exceptions=True
        )
        try:
            async with self._lock:
                accrued = self._accrued.pop(thread_id, None)
                goal = await self._goal(thread_id)
                if goal is None or accrued is None:
                    return
                goal = {**goal, "timeUsedSeconds": int(goal["timeUsedSeconds"]) + duration_ms // 1000}
                await self._store.put_goal(thread_id, goal)
        except StoreError as exc:  # logged: a goal's bookkeeping never fails the turn
            _log.warning("goals.store_failed", thread_id=thread_id, error=str(exc))
            return
        self.announce(thread_id, goal, turn_id)

    async def _continue(self, thread_id: str) -> None:
        try:
            goal = await self._goal(thread_id)
        except StoreError as exc:
            _log.warning("goals.store_failed", thread_id=thread_id, error=str(exc))
            return
        if goal is not None:
            self.continue_if_active(thread_id, goal)

    def continue_if_active(self, thread_id: str, goal: dict[str, Any]) -> None:
        """Start a goal turn when the goal is active and its loaded thread idle."""
        handle = self._threads.get(thread_id)
        if goal.get("status") != "active" or handle is None or handle.running:
            return
        handle.start_goal_turn(continuation_note(goal))
