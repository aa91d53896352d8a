"""thread/goal/set, thread/goal/get, thread/goal/clear: a thread's goal, as Codex 0.169.0 answers them."""

from __future__ import annotations

from tether_protocol.v2 import thread_goal as tg
from tether_server.core.goal_tools import GoalError
from tether_server.errors import InvalidRequest
from tether_server.processor.goals import KEEP, GoalBook
from tether_server.processor.state import ServerState
from tether_server.processor.thread_lookup import record_or_fail
from tether_server.processor.uuid_text import check_thread_id
from tether_server.rpc.context import RequestContext


def _book(state: ServerState) -> GoalBook:
    # Codex checks the feature before anything else, the thread id included.
    if not state.goals_on():
        raise InvalidRequest("goals feature is disabled")
    if state.goals is None:
        raise InvalidRequest("thread goals are not available")
    return state.goals


async def goal_set(
    state: ServerState, ctx: RequestContext, params: tg.ThreadGoalSetParams
) -> tg.ThreadGoalSetResponse:
    """Create the goal (active unless `status` says otherwise) or change the current one.

    `origin` is accepted and not acted on: Tether has no goal actions that need a user's say-so.
    """
    book = _book(state)
    check_thread_id(params.thread_id)
    await record_or_fail(state, params.thread_id)
    budget = params.token_budget if "token_budget" in params.model_fields_set else KEEP
    try:
        goal = await book.set(params.thread_id, params.objective, params.status, budget)
    except GoalError as exc:
        raise InvalidRequest(str(exc)) from None
    ctx.after_response(lambda: book.announce(params.thread_id, goal, None))
    ctx.after_response(lambda: book.continue_if_active(params.thread_id, goal))
    return tg.ThreadGoalSetResponse.model_validate({"goal": goal})


async def goal_get(
    state: ServerState, ctx: RequestContext, params: tg.ThreadGoalGetParams
) -> tg.ThreadGoalGetResponse:
    book = _book(state)
    check_thread_id(params.thread_id)
    await record_or_fail(state, params.thread_id)
    goal = await book.get(params.thread_id)
    return tg.ThreadGoalGetResponse.model_validate({"goal": goal})


async def goal_clear(
    state: ServerState, ctx: RequestContext, params: tg.ThreadGoalClearParams
) -> tg.ThreadGoalClearResponse:
    book = _book(state)
    check_thread_id(params.thread_id)
    await record_or_fail(state, params.thread_id)
    cleared = await book.clear(params.thread_id)
    if cleared:
        ctx.after_response(lambda: book.announce_cleared(params.thread_id))
    return tg.ThreadGoalClearResponse(cleared=cleared)
