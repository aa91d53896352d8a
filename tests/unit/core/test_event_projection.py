"""The projection: every core event becomes a notification the protocol declares, in its shape."""

from __future__ import annotations

from typing import Any

import pytest

from tether_protocol.methods import SERVER_NOTIFICATIONS, SERVER_REQUESTS
from tether_server.core import events as ev
from tether_server.core import items
from tether_server.processor import projection
from tether_server.providers.base import TokenUsage

T, U = "thread-1", "turn-1"
_AGENT = items.AgentMessage("msg-1", "hello", 10)
_ACTION = {"type": "command", "command": "ls", "cwd": "/tmp", "source": "unifiedExec"}

SAMPLES: list[ev.CoreEvent] = [
    ev.ThreadStatusChanged(T, ev.ThreadStatus.active("waitingOnApproval")),
    ev.ThreadStatusChanged(T, ev.SYSTEM_ERROR),
    ev.ThreadClosed(T),
    ev.ThreadReverted(T),
    ev.ThreadWarning(T, "compacted"),
    ev.TurnStarted(T, U, 1),
    ev.TurnCompleted(T, U, "completed", 1, 2, 5, None, items.AgentMessage("msg-1", "hi", 10, None, 20)),
    ev.TurnFailed(T, U, items.turn_error("boom"), will_retry=True),
    ev.PlanUpdated(T, U, "why", (ev.PlanStep("a", "pending"), ev.PlanStep("b", "inProgress"))),
    ev.DiffUpdated(T, U, "--- a\n+++ b\n"),
    ev.TokenUsageUpdated(T, U, TokenUsage(input_tokens=3, total_tokens=5), TokenUsage(total_tokens=2), 1000),
    ev.ItemStarted(T, U, _AGENT),
    ev.ItemCompleted(T, U, items.Plan("plan-1", "[ ] step", 10, 20)),
    ev.AgentMessageDelta(T, U, "msg-1", "he"),
    ev.PlanDelta(T, U, "turn-1-plan", "# Plan\n"),
    ev.ReasoningSummaryPartAdded(T, U, "rs-1", 0),
    ev.ReasoningSummaryDelta(T, U, "rs-1", "thinking", 0),
    ev.ReasoningTextDelta(T, U, "rs-1", "raw", 1),
    ev.CommandOutputDelta(T, U, "call-1", "out\n"),
    ev.McpToolCallProgress(T, U, "call-2", "half way"),
    ev.TerminalInteraction(T, U, "call-1", "7", "y\n"),
    ev.AutoReviewStarted(T, U, "rev-1", "call-1", 10, _ACTION),
    ev.AutoReviewCompleted(T, U, "rev-1", "call-1", 10, _ACTION, "denied", "high", "no", 20),
    ev.ApprovalResolved(T, 4),
    ev.HookStarted(
        T,
        U,
        ev.HookRun(
            "pre-tool-use:0:/c.toml:call-1", "preToolUse", "turn", "/c.toml", "user", 0, "running", None, 1
        ),
    ),
    ev.HookCompleted(
        T,
        U,
        ev.HookRun(
            "stop:1:/c.toml",
            "stop",
            "turn",
            "/c.toml",
            "user",
            1,
            "failed",
            "s",
            1,
            "sync",
            2,
            5,
            (("error", "x"),),
        ),
    ),
]


def _leaf_event_types() -> set[type[ev.CoreEvent]]:
    # Only the classes the module exports: `slots=True` replaces each class, and the replaced
    # originals linger among `__subclasses__()` until collected.
    kinds = {k for k in vars(ev).values() if isinstance(k, type) and issubclass(k, ev.CoreEvent)}
    return {k for k in kinds if not any(o is not k and issubclass(o, k) for o in kinds)}


def test_every_event_type_has_a_projection_and_a_sample() -> None:
    leaves = _leaf_event_types()
    assert leaves <= projection.projected_types()
    assert {type(s) for s in SAMPLES} == leaves


@pytest.mark.parametrize(
    ("status", "wire"),
    [
        (ev.IDLE, {"type": "idle"}),
        (ev.NOT_LOADED, {"type": "notLoaded"}),
        (ev.SYSTEM_ERROR, {"type": "systemError"}),
        (ev.ThreadStatus.active(), {"type": "active", "activeFlags": []}),
        (
            ev.ThreadStatus.active("waitingOnApproval"),
            {"type": "active", "activeFlags": ["waitingOnApproval"]},
        ),
    ],
)
def test_thread_status_on_the_wire(status: ev.ThreadStatus, wire: dict[str, Any]) -> None:
    assert projection.status_json(status) == wire


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: type(e).__name__)
def test_projected_params_fit_the_declared_notification(event: ev.CoreEvent) -> None:
    spec, params = projection.notification(event)
    assert SERVER_NOTIFICATIONS[spec.name] is spec
    model = spec.params.model_validate(params)
    assert set(params) <= set(model.wire()), f"{spec.name}: keys the protocol does not know"


ALL_ITEMS: list[items.ThreadItem] = [
    items.UserMessage("u-1", [{"type": "text", "text": "hi", "text_elements": []}], "c-1", 10, 11),
    items.AgentMessage("a-1", "hello", 10, "final_answer", 12),
    items.Reasoning("r-1", 10, ["thought"], ["raw"], 12),
    items.Plan("p-1", "[x] done", 10, 12),
    items.CommandExecution(
        "x-1",
        "ls",
        "/w",
        [{"type": "listFiles", "command": "ls", "path": None}],
        10,
        status="completed",
        exit_code=0,
        completed_at_ms=12,
    ),
    items.FileChange("f-1", [{"path": "/w/a", "kind": {"type": "add"}, "diff": "+a\n"}], 10, "completed", 12),
    items.ContextCompaction("k-1", 10, 12),
    items.ReviewMode("r-1", "enteredReviewMode", "current changes", 10, 12),
    items.ReviewMode("r-2", "exitedReviewMode", "No findings.", 10, 12),
    items.WebSearch("w-1", 10, "q", {"type": "search", "query": "q", "queries": ["q"]}, 12),
    items.McpToolCall(
        "m-1",
        "docs",
        "lookup",
        {"q": 1},
        10,
        "completed",
        {"content": [{"type": "text", "text": "x"}], "structuredContent": {"n": 1}, "_meta": None},
        duration_ms=3,
        read_only=True,
        completed_at_ms=12,
    ),
    items.McpToolCall(
        "m-2", "docs", "lookup", {}, 10, "failed", error="boom", duration_ms=1, completed_at_ms=12
    ),
    items.DynamicToolCall(
        "d-1", None, "lookup", {"q": 1}, 10, "completed", [{"type": "inputText", "text": "ok"}], True, 2, 12
    ),
    items.ImageView("call-img", "/work/project/chart.png", 10, 12),
    items.HookPrompt("msg-h", [("stop:0:/c.toml", "keep going")], 10, 12),
    items.CollabAgentToolCall(
        "call-spawn",
        "spawnAgent",
        "thr-parent",
        10,
        ["thr-child"],
        "completed",
        "do this",
        "gpt-5.5",
        "medium",
        {"thr-child": {"status": "pendingInit", "message": None}},
        12,
    ),
]


def test_every_item_type_has_its_json_form() -> None:
    kinds = {k for k in vars(items).values() if isinstance(k, type) and k.__module__ == items.__name__}
    assert {type(i) for i in ALL_ITEMS} == kinds


@pytest.mark.parametrize("item", ALL_ITEMS, ids=lambda i: type(i).__name__)
def test_each_item_kind_completes_as_the_protocol_declares(item: items.ThreadItem) -> None:
    spec, params = projection.notification(ev.ItemCompleted(T, U, item))
    model = spec.params.model_validate(params)
    assert set(params["item"]) <= set(model.wire()["item"])
    assert params["item"] == projection.item_json(item)


def test_a_completed_turn_carries_its_final_message_as_summary() -> None:
    final = items.AgentMessage("a-1", "done", 10, None, 12)
    _, params = projection.notification(ev.TurnCompleted(T, U, "completed", 1, 2, 5, None, final))
    assert params["turn"]["itemsView"] == "summary"
    assert params["turn"]["items"] == [projection.item_json(final)]
    _, params = projection.notification(ev.TurnCompleted(T, U, "interrupted", 1, 2, 5))
    assert params["turn"]["itemsView"] == "notLoaded"
    assert params["turn"]["items"] == []


def test_item_started_shows_the_item_as_it_was_when_it_started() -> None:
    item = items.CommandExecution("call-9", "ls", "/tmp", [], 10)
    _, params = projection.notification(ev.ItemStarted(T, U, item))
    item.status, item.exit_code = "completed", 0
    assert params["item"]["status"] == "inProgress"
    assert params["item"]["exitCode"] is None
    assert params["startedAtMs"] == 10


def test_durability_follows_what_the_event_reports() -> None:
    assert ev.ItemCompleted.durability is ev.Durability.DURABLE
    assert ev.TurnCompleted.durability is ev.Durability.DURABLE
    assert ev.ItemStarted.durability is ev.Durability.LAZY
    assert ev.TurnStarted.durability is ev.Durability.LAZY
    assert ev.AgentMessageDelta.durability is ev.Durability.EPHEMERAL
    assert ev.CommandOutputDelta.durability is ev.Durability.EPHEMERAL


def _validated_request(ask: ev.ApprovalAsk) -> tuple[str, dict[str, Any]]:
    method, params = projection.approval_request(ask)
    model = SERVER_REQUESTS[method].params.model_validate(params)
    assert set(params) <= set(model.wire())
    return method, params


def test_command_approval_request_offers_the_amendment_when_one_is_proposed() -> None:
    plain = ev.CommandApprovalAsk(T, U, "call-1", 10, "rm -rf build", "/w", [], "why", None)
    method, params = _validated_request(plain)
    assert method == "item/commandExecution/requestApproval"
    assert params["availableDecisions"] == ["accept", "acceptForSession", "decline", "cancel"]
    assert "proposedExecpolicyAmendment" not in params

    _, params = _validated_request(
        ev.CommandApprovalAsk(T, U, "call-1", 10, "make", "/w", [], None, ("make",))
    )
    assert params["proposedExecpolicyAmendment"] == ["make"]
    assert params["availableDecisions"][1] == {
        "acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["make"]}
    }


def test_file_change_request_carries_no_private_fields() -> None:
    method, params = _validated_request(ev.FileChangeApprovalAsk(T, U, "call-2", 10, ("/w/a.py",)))
    assert method == "item/fileChange/requestApproval"
    assert params == {
        "threadId": T,
        "turnId": U,
        "itemId": "call-2",
        "startedAtMs": 10,
        "reason": None,
        "grantRoot": None,
    }


@pytest.mark.parametrize(
    ("result", "answer"),
    [
        ({"decision": "acceptForSession"}, ev.ApprovalAnswer("acceptForSession")),
        (
            {"decision": {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["make", "test"]}}},
            ev.ApprovalAnswer("acceptWithExecpolicyAmendment", ("make", "test")),
        ),
        ({"decision": 3}, ev.ApprovalAnswer("decline")),
        ({}, ev.ApprovalAnswer("decline")),
    ],
)
def test_approval_answers_are_read_and_anything_unreadable_declines(
    result: dict[str, Any], answer: ev.ApprovalAnswer
) -> None:
    assert projection.approval_answer(result) == answer
