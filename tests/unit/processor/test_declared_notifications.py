"""Every notification the server emits is in the method table (which drives schema, TS and SDK)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.unit.processor.conftest import Connect

from tether_protocol.methods import SERVER_NOTIFICATIONS
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer

_ESCALATED = {
    "cmd": "echo hi > out.txt && cat out.txt",
    "sandbox_permissions": "require_escalated",
    "justification": "Allow writing out.txt?",
}
_PATCH = "*** Begin Patch\n*** Add File: new.txt\n+content\n*** End Patch\n"
_PLAN = {"plan": [{"step": "write files", "status": "completed"}, {"step": "report", "status": "pending"}]}


def _verdict(outcome: str) -> dict[str, Any]:
    answer = {"outcome": outcome, "risk_level": "low", "rationale": f"reviewer says {outcome}"}
    return script.text_reply(json.dumps(answer), deltas=1)


async def test_a_turn_touching_every_tool_and_the_auto_reviewer_emits_only_declared_notifications(
    connect: Connect, fake_model: FakeResponsesServer, workdir: Path
) -> None:
    fake_model.add(
        script.reply(
            script.reasoning(["thinking"], content=["raw"]), script.function_call("exec_command", _ESCALATED)
        ),
        _verdict("allow"),
        script.reply(script.custom_tool_call("apply_patch", _PATCH)),
        _verdict("deny"),
        script.reply(script.function_call("update_plan", _PLAN)),
        script.text_reply("done"),
    )
    client = await connect()
    started = await client.request(
        "thread/start",
        {
            "cwd": str(workdir),
            "sandbox": "read-only",
            "approvalPolicy": "on-request",
            "approvalsReviewer": "auto_review",
        },
    )
    thread_id = started["thread"]["id"]
    mark = client.mark()
    await client.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": "go"}]})
    await client.notification("turn/completed", after=mark)
    await client.request("thread/name/set", {"threadId": thread_id, "name": "all tools"})
    await client.request("thread/archive", {"threadId": thread_id})
    emitted = {x["method"] for x in client.messages if "method" in x and "id" not in x}
    assert emitted - set(SERVER_NOTIFICATIONS) == set()
    assert {
        "item/autoApprovalReview/started",
        "item/autoApprovalReview/completed",
        "turn/plan/updated",
    } <= emitted
    assert {
        "item/reasoning/summaryTextDelta",
        "item/commandExecution/outputDelta",
        "thread/archived",
    } <= emitted
