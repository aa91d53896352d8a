"""`review/start`: gather the target's diff, then run the review as a turn of the thread.

The diff is gathered before the turn starts, so a bad target (not a repository, an unknown branch
or commit) is a JSON-RPC error and starts nothing.
"""

from __future__ import annotations

from tether_protocol.v2 import review_mode as rm
from tether_protocol.v2.turn import Turn
from tether_server.core.review_mode import ReviewJob
from tether_server.errors import Conflict, NotFound, archived_message
from tether_server.processor import projection
from tether_server.processor.state import ServerState
from tether_server.processor.turn import DRAINING
from tether_server.rpc.context import RequestContext
from tether_server.tools import git_review


async def _scope(target: rm.ReviewTarget, cwd: str) -> git_review.ReviewScope:
    if isinstance(target, rm.UncommittedChangesReviewTarget):
        return await git_review.uncommitted(cwd)
    if isinstance(target, rm.BaseBranchReviewTarget):
        return await git_review.against_branch(cwd, target.branch)
    if isinstance(target, rm.CommitReviewTarget):
        return await git_review.commit(cwd, target.sha, target.title)
    return await git_review.custom(cwd, target.instructions)


async def start(
    state: ServerState, ctx: RequestContext, params: rm.ReviewStartParams
) -> rm.ReviewStartResponse:
    handle = state.threads.get(params.thread_id)
    if handle is None:
        raise NotFound(f"thread not found: {params.thread_id}")
    if state.draining:
        raise Conflict(DRAINING, data={"reason": "serverShuttingDown"})
    if handle.record.archived:
        raise Conflict(archived_message(params.thread_id))
    if handle.running:
        raise Conflict("cannot start a review while a turn is running; interrupt it or wait for it to finish")
    scope = await _scope(params.target, handle.settings.cwd)
    turn_id, release = await handle.start_review(ReviewJob(scope.label, scope.request))
    ctx.after_response(release)
    turn = Turn.model_validate(projection.turn_json(turn_id, "inProgress", started_at=None))
    return rm.ReviewStartResponse(turn=turn, review_thread_id=params.thread_id)
