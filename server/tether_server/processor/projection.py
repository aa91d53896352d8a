"""The one translator from core events to the wire: notification specs and their params.

Every `tether_server.core.events` event maps to one notification spec of the protocol's method
table, and every approval ask to one server request. The params are `WireParams[P]`, dicts in the
exact shape of the spec's model `P` (mypy ties each builder to its spec; the unit tests validate
each dict against `P`), rather than `P` itself: this runs once per streamed delta, where building
and dumping the model would cost more than everything else on that path, and a model's dump
would put the keys of nested items in another order than the wire has them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from tether_protocol import server_methods as sm
from tether_protocol.common import WireModel
from tether_protocol.spec import AnyNotificationSpec, NotificationSpec, WireParams
from tether_protocol.v2 import hooks as hk
from tether_protocol.v2 import notifications as n
from tether_protocol.v2.mcp import McpToolCallProgressNotification
from tether_protocol.v2.review import (
    ItemGuardianApprovalReviewCompletedNotification,
    ItemGuardianApprovalReviewStartedNotification,
)
from tether_server.core import events as ev
from tether_server.processor.items_json import item_json, turn_json
from tether_server.providers.base import TokenUsage

__all__ = ["approval_answer", "approval_request", "item_json", "notification", "status_json", "turn_json"]

Params = dict[str, Any]
E = TypeVar("E", bound=ev.CoreEvent)
P = TypeVar("P", bound=WireModel)
Projected = tuple[AnyNotificationSpec, WireParams[Any]]
"""A notification's spec and its params, as the projection hands them to the thread's handle."""

AMENDMENT_DECISION = "acceptWithExecpolicyAmendment"
_PROJECTORS: dict[type[ev.CoreEvent], tuple[AnyNotificationSpec, Callable[[Any], WireParams[Any]]]] = {}


def _projects(
    event_type: type[E], spec: NotificationSpec[P]
) -> Callable[[Callable[[E], WireParams[P]]], Callable[[E], WireParams[P]]]:
    """Register the params builder of `event_type`'s notification; mypy ties its result to `spec`."""

    def register(build: Callable[[E], WireParams[P]]) -> Callable[[E], WireParams[P]]:
        _PROJECTORS[event_type] = (spec, build)
        return build

    return register


def notification(event: ev.CoreEvent) -> Projected:
    """(spec, params) of the notification that announces `event`."""
    spec, build = _PROJECTORS[type(event)]
    return spec, build(event)


def projected_types() -> frozenset[type[ev.CoreEvent]]:
    return frozenset(_PROJECTORS)


def _ids(event: ev.TurnEvent) -> Params:
    return {"threadId": event.thread_id, "turnId": event.turn_id}


# ---- thread ----------------------------------------------------------------------------------------


def status_json(status: ev.ThreadStatus) -> Params:
    """A `ThreadStatus` as the wire has it."""
    if status.kind == "active":
        return {"type": "active", "activeFlags": list(status.active_flags)}
    return {"type": status.kind}


@_projects(ev.ThreadStatusChanged, sm.THREAD_STATUS_CHANGED)
def _status(e: ev.ThreadStatusChanged) -> WireParams[n.ThreadStatusChangedNotification]:
    return WireParams({"threadId": e.thread_id, "status": status_json(e.status)})


@_projects(ev.ThreadClosed, sm.THREAD_CLOSED)
def _closed(e: ev.ThreadClosed) -> WireParams[n.ThreadClosedNotification]:
    return WireParams({"threadId": e.thread_id})


@_projects(ev.ThreadReverted, sm.THREAD_REVERTED)
def _reverted(e: ev.ThreadReverted) -> WireParams[n.ThreadRevertedNotification]:
    return WireParams({"threadId": e.thread_id})


@_projects(ev.ThreadWarning, sm.WARNING)
def _warning(e: ev.ThreadWarning) -> WireParams[n.WarningNotification]:
    return WireParams({"threadId": e.thread_id, "message": e.message})


# ---- turn ------------------------------------------------------------------------------------------


@_projects(ev.TurnStarted, sm.TURN_STARTED)
def _turn_started(e: ev.TurnStarted) -> WireParams[n.TurnStartedNotification]:
    turn = turn_json(e.turn_id, "inProgress", started_at=e.started_at)
    return WireParams({"threadId": e.thread_id, "turn": turn})


@_projects(ev.TurnCompleted, sm.TURN_COMPLETED)
def _turn_completed(e: ev.TurnCompleted) -> WireParams[n.TurnCompletedNotification]:
    summary = [item_json(e.final)] if e.final is not None else []
    turn = turn_json(
        e.turn_id,
        e.status,
        started_at=e.started_at,
        completed_at=e.completed_at,
        duration_ms=e.duration_ms,
        error=e.error,
        items=summary,
        items_view="summary" if summary else "notLoaded",
    )
    return WireParams({"threadId": e.thread_id, "turn": turn})


@_projects(ev.TurnFailed, sm.ERROR)
def _error(e: ev.TurnFailed) -> WireParams[n.ErrorNotification]:
    return WireParams({"error": e.error, "willRetry": e.will_retry, **_ids(e)})


@_projects(ev.PlanUpdated, sm.TURN_PLAN_UPDATED)
def _plan(e: ev.PlanUpdated) -> WireParams[n.TurnPlanUpdatedNotification]:
    plan = [{"step": s.step, "status": s.status} for s in e.plan]
    return WireParams({**_ids(e), "explanation": e.explanation, "plan": plan})


@_projects(ev.DiffUpdated, sm.TURN_DIFF_UPDATED)
def _diff(e: ev.DiffUpdated) -> WireParams[n.TurnDiffUpdatedNotification]:
    return WireParams({**_ids(e), "diff": e.diff})


def _breakdown(u: TokenUsage) -> dict[str, int]:
    return {
        "totalTokens": u.total_tokens,
        "inputTokens": u.input_tokens,
        "cachedInputTokens": u.cached_input_tokens,
        "cacheWriteInputTokens": 0,
        "outputTokens": u.output_tokens,
        "reasoningOutputTokens": u.reasoning_output_tokens,
    }


@_projects(ev.TokenUsageUpdated, sm.THREAD_TOKEN_USAGE_UPDATED)
def _usage(e: ev.TokenUsageUpdated) -> WireParams[n.ThreadTokenUsageUpdatedNotification]:
    usage = {"total": _breakdown(e.total), "last": _breakdown(e.last), "modelContextWindow": e.context_window}
    return WireParams({**_ids(e), "tokenUsage": usage})


# ---- items -----------------------------------------------------------------------------------------


@_projects(ev.ItemStarted, sm.ITEM_STARTED)
def _item_started(e: ev.ItemStarted) -> WireParams[n.ItemStartedNotification]:
    return WireParams({"item": item_json(e.item), **_ids(e), "startedAtMs": e.item.started_at_ms})


@_projects(ev.ItemCompleted, sm.ITEM_COMPLETED)
def _item_completed(e: ev.ItemCompleted) -> WireParams[n.ItemCompletedNotification]:
    return WireParams(
        {
            "item": item_json(e.item),
            **_ids(e),
            "completedAtMs": e.item.completed_at_ms,
            "contentTokenCount": None,
        }
    )


@_projects(ev.AgentMessageDelta, sm.ITEM_AGENT_MESSAGE_DELTA)
def _agent_delta(e: ev.AgentMessageDelta) -> WireParams[n.AgentMessageDeltaNotification]:
    # One literal, not `_ids` merged in: this runs once per streamed token.
    params = {"threadId": e.thread_id, "turnId": e.turn_id, "itemId": e.item_id, "delta": e.delta}
    return WireParams(params)


@_projects(ev.PlanDelta, sm.ITEM_PLAN_DELTA)
def _plan_delta(e: ev.PlanDelta) -> WireParams[n.PlanDeltaNotification]:
    return WireParams({"threadId": e.thread_id, "turnId": e.turn_id, "itemId": e.item_id, "delta": e.delta})


@_projects(ev.ReasoningSummaryPartAdded, sm.ITEM_REASONING_SUMMARY_PART_ADDED)
def _summary_part(e: ev.ReasoningSummaryPartAdded) -> WireParams[n.ReasoningSummaryPartAddedNotification]:
    return WireParams(
        {
            **_ids(e),
            "itemId": e.item_id,
            "summaryIndex": e.summary_index,
        }
    )


@_projects(ev.ReasoningSummaryDelta, sm.ITEM_REASONING_SUMMARY_TEXT_DELTA)
def _summary_delta(e: ev.ReasoningSummaryDelta) -> WireParams[n.ReasoningSummaryTextDeltaNotification]:
    params = {**_ids(e), "itemId": e.item_id, "delta": e.delta, "summaryIndex": e.summary_index}
    return WireParams(params)


@_projects(ev.ReasoningTextDelta, sm.ITEM_REASONING_TEXT_DELTA)
def _reasoning_delta(e: ev.ReasoningTextDelta) -> WireParams[n.ReasoningTextDeltaNotification]:
    params = {**_ids(e), "itemId": e.item_id, "delta": e.delta, "contentIndex": e.content_index}
    return WireParams(params)


@_projects(ev.CommandOutputDelta, sm.ITEM_COMMAND_EXECUTION_OUTPUT_DELTA)
def _output_delta(e: ev.CommandOutputDelta) -> WireParams[n.CommandExecutionOutputDeltaNotification]:
    return WireParams({**_ids(e), "itemId": e.item_id, "delta": e.delta})


@_projects(ev.McpToolCallProgress, sm.ITEM_MCP_TOOL_CALL_PROGRESS)
def _mcp_progress(e: ev.McpToolCallProgress) -> WireParams[McpToolCallProgressNotification]:
    return WireParams({**_ids(e), "itemId": e.item_id, "message": e.message})


@_projects(ev.TerminalInteraction, sm.ITEM_COMMAND_EXECUTION_TERMINAL_INTERACTION)
def _terminal(e: ev.TerminalInteraction) -> WireParams[n.TerminalInteractionNotification]:
    params = {**_ids(e), "itemId": e.item_id, "processId": e.process_id, "stdin": e.stdin}
    return WireParams(params)


# ---- approvals -------------------------------------------------------------------------------------


def _review_base(e: ev.AutoReviewStarted | ev.AutoReviewCompleted) -> Params:
    return {
        **_ids(e),
        "reviewId": e.review_id,
        "targetItemId": e.target_item_id,
        "startedAtMs": e.started_at_ms,
        "action": e.action,
    }


@_projects(ev.AutoReviewStarted, sm.ITEM_AUTO_APPROVAL_REVIEW_STARTED)
def _review_started(e: ev.AutoReviewStarted) -> WireParams[ItemGuardianApprovalReviewStartedNotification]:
    pending = {"status": "inProgress", "riskLevel": None, "rationale": None, "userAuthorization": None}
    return WireParams({**_review_base(e), "review": pending})


@_projects(ev.AutoReviewCompleted, sm.ITEM_AUTO_APPROVAL_REVIEW_COMPLETED)
def _review_completed(
    e: ev.AutoReviewCompleted,
) -> WireParams[ItemGuardianApprovalReviewCompletedNotification]:
    done = {
        "status": e.status,
        "riskLevel": e.risk_level,
        "rationale": e.rationale,
        "userAuthorization": None,
    }
    params = {
        **_review_base(e),
        "review": done,
        "completedAtMs": e.completed_at_ms,
        "decisionSource": "agent",
    }
    return WireParams(params)


def _hook_run(e: ev.HookStarted | ev.HookCompleted) -> Params:
    run = e.run
    summary = {
        "id": run.id,
        "eventName": run.event_name,
        "handlerType": run.handler_type,
        "executionMode": run.execution_mode,
        "scope": run.scope,
        "sourcePath": run.source_path,
        "source": run.source,
        "displayOrder": run.display_order,
        "status": run.status,
        "statusMessage": run.status_message,
        "startedAt": run.started_at,
        "completedAt": run.completed_at,
        "durationMs": run.duration_ms,
        "entries": [{"kind": kind, "text": text} for kind, text in run.entries],
    }
    return {"threadId": e.thread_id, "turnId": e.turn_id, "run": summary}


@_projects(ev.HookStarted, sm.HOOK_STARTED)
def _hook_started(e: ev.HookStarted) -> WireParams[hk.HookStartedNotification]:
    return WireParams(_hook_run(e))


@_projects(ev.HookCompleted, sm.HOOK_COMPLETED)
def _hook_completed(e: ev.HookCompleted) -> WireParams[hk.HookCompletedNotification]:
    return WireParams(_hook_run(e))


@_projects(ev.ApprovalResolved, sm.SERVER_REQUEST_RESOLVED)
def _resolved(e: ev.ApprovalResolved) -> WireParams[n.ServerRequestResolvedNotification]:
    return WireParams({"threadId": e.thread_id, "requestId": e.request_id})


def approval_request(ask: ev.ApprovalAsk) -> tuple[str, Params]:
    """(method, params) of the server request that puts `ask` to the clients."""
    if isinstance(ask, ev.McpToolApprovalAsk):
        return MCP_ELICITATION, mcp_approval_params(ask)
    ids: Params = {"threadId": ask.thread_id, "turnId": ask.turn_id, "itemId": ask.item_id}
    if isinstance(ask, ev.FileChangeApprovalAsk):
        params: Params = {**ids, "startedAtMs": ask.started_at_ms, "reason": None, "grantRoot": None}
        return "item/fileChange/requestApproval", params
    params = {
        **ids,
        "startedAtMs": ask.started_at_ms,
        "kind": "command",
        "environmentId": "local",
        "command": ask.command,
        "cwd": ask.cwd,
        "commandActions": ask.command_actions,
        "reason": ask.reason,
        "availableDecisions": ["accept", "acceptForSession", "decline", "cancel"],
    }
    if ask.amendment:
        # Codex offers exactly these three when it proposes a rule.
        proposed = list(ask.amendment)
        params["proposedExecpolicyAmendment"] = proposed
        params["availableDecisions"] = [
            "accept",
            {AMENDMENT_DECISION: {"execpolicy_amendment": proposed}},
            "cancel",
        ]
    return "item/commandExecution/requestApproval", params


def approval_answer(result: Params) -> ev.ApprovalAnswer:
    """A client's approval response as the core's answer; anything unreadable declines."""
    if "action" in result:  # an elicitation's answer: cancel stops the call, not the turn
        return ev.ApprovalAnswer("accept" if result.get("action") == "accept" else "decline")
    decision = result.get("decision")
    amendment: tuple[str, ...] | None = None
    if isinstance(decision, dict):
        body = decision.get(AMENDMENT_DECISION)
        prefix = body.get("execpolicy_amendment") if isinstance(body, dict) else None
        if isinstance(prefix, list):
            amendment = tuple(str(p) for p in prefix)
        decision = next(iter(decision), "decline")
    return ev.ApprovalAnswer(decision if isinstance(decision, str) else "decline", amendment)


MCP_ELICITATION = "mcpServer/elicitation/request"
MCP_APPROVAL_KIND = "mcp_tool_call"


def mcp_approval_params(ask: ev.McpToolApprovalAsk) -> Params:
    """An MCP tool approval as Codex asks it: an elicitation with no fields, marked in `_meta`."""
    what = "a destructive tool" if ask.destructive else "a tool"
    return {
        "threadId": ask.thread_id,
        "turnId": ask.turn_id,
        "serverName": ask.server,
        "mode": "form",
        "message": f"Allow the {ask.server} MCP server to run {what}: {ask.tool}?",
        "requestedSchema": {"type": "object", "properties": {}},
        "_meta": {
            "codex_approval_kind": MCP_APPROVAL_KIND,
            "tool_name": ask.tool,
            "tool_params": ask.arguments,
            "call_id": ask.item_id,
        },
    }


def mcp_elicitation_params(server: str, thread_id: str, turn_id: str | None, params: Params) -> Params:
    """An MCP server's `elicitation/create` params as `mcpServer/elicitation/request` params."""
    out: Params = {"threadId": thread_id, "turnId": turn_id, "serverName": server}
    mode = params.get("mode") or "form"
    out["mode"] = mode
    out["message"] = str(params.get("message", ""))
    if mode == "url":
        out["url"] = str(params.get("url", ""))
        out["elicitationId"] = str(params.get("elicitationId", ""))
    else:
        schema = params.get("requestedSchema") or {}
        # The form schema is a closed shape: only these keys at its top (a `title` is dropped).
        kept = {k: schema[k] for k in ("$schema", "type", "properties", "required") if k in schema}
        out["requestedSchema"] = {"type": "object", "properties": {}, **kept}
    if params.get("_meta") is not None:
        out["_meta"] = params["_meta"]
    return out
