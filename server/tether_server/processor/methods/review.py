"""`review/start`: gather the target's diff, then run the review as a turn of the thread.

The diff is gathered before the turn starts, so a bad target (not a repository, an unknown branch
or commit) is a JSON-RPC error and starts nothing. The git commands that gather it run in the
read-only sandbox without network, whatever the thread's own policy: the repository's configuration
is not the user's. Only a thread that already runs its commands unconfined (danger-full-access, an
external sandbox) runs them bare when the sandbox is unavailable; any other thread gets the sandbox's
refusal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tether_protocol.v2 import review_mode as rm
from tether_protocol.v2.items import UserMessageItem
from tether_server.core.review_mode import ReviewJob
from tether_server.errors import Conflict, NotFound, SandboxError, archived_message
from tether_server.processor.methods.turn import DRAINING, answer_then_run
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext
from tether_server.sandbox.runner import PreparedCommand
from tether_server.tools import git_review

GIT_POLICY: dict[str, Any] = {"type": "readOnly", "networkAccess": False}
_UNCONFINED = ("dangerFullAccess", "externalSandbox")


def _launcher(state: ServerState, thread_policy: dict[str, Any]) -> git_review.Launch:
    gate = state.threads.deps.gate
    unconfined = thread_policy.get("type") in _UNCONFINED

    def launch(cwd: Path, argv: list[str]) -> PreparedCommand:
        try:
            return gate(GIT_POLICY, cwd, cwd, argv, True)
        except SandboxError:
            if not unconfined:
                raise
            return gate(GIT_POLICY, cwd, cwd, argv, False)

    return launch


async def _scope(target: rm.ReviewTarget, repo: git_review.Repo) -> git_review.ReviewScope:
    if isinstance(target, rm.UncommittedChangesReviewTarget):
        return await git_review.uncommitted(repo)
    if isinstance(target, rm.BaseBranchReviewTarget):
        return await git_review.against_branch(repo, target.branch)
    if isinstance(target, rm.CommitReviewTarget):
        return await git_review.commit(repo, target.sha, target.title)
    return await git_review.custom(repo, target.instructions)


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
    settings = handle.settings
    repo = git_review.Repo(settings.cwd, _launcher(state, settings.sandbox_policy))
    scope = await _scope(params.target, repo)
    started = await handle.start_review(ReviewJob(scope.label, scope.request))
    turn = answer_then_run(ctx, started)
    # Codex answers with the review request as the user's message (the label its client shows),
    # under the turn's own id, and no root turn.
    request = {
        "type": "userMessage",
        "id": turn.id,
        "clientId": None,
        "content": [{"type": "text", "text": scope.label, "text_elements": []}],
        "startedAtMs": None,
        "completedAtMs": None,
    }
    answer = turn.model_copy(
        update={"items": [UserMessageItem.model_validate(request)], "root_turn_id": None}
    )
    return rm.ReviewStartResponse(turn=answer, review_thread_id=params.thread_id)
