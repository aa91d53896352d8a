"""Tools the model calls: apply_patch (fileChange items) and exec_command (commandExecution items)."""

from __future__ import annotations

import json
from typing import Any

from conformance.client import Client, Message
from conformance.context import CaseContext, text_input
from conformance.manifest import case
from conformance.shape import items, of_method
from tether_testing import script

PATCH = (
    "*** Begin Patch\n*** Add File: notes/new.txt\n+first line\n+second line\n"
    "*** Update File: README.md\n@@\n # demo\n-old text\n+new text\n*** End Patch"
)


async def finish_turn(
    client: Client, thread_id: str, text: str, decision: Any = "accept"
) -> tuple[int, Message]:
    """Run a turn, answering any approval request with `decision`; returns (mark, turn/completed)."""
    mark = client.mark()
    await client.request("turn/start", {"threadId": thread_id, "input": text_input(text)})
    index = mark
    while True:
        message = await client.wait_for(
            lambda m: m.get("method") == "turn/completed" or ("method" in m and "id" in m), after=index
        )
        if message.get("method") == "turn/completed":
            return mark, message
        await client.respond(message["id"], {"decision": decision})
        index = client.messages.index(message) + 1


def tool_outputs(ctx: CaseContext, kind: str) -> list[dict[str, Any]]:
    """The `kind` items (e.g. function_call_output) the server sent the model, all requests."""
    return [i for r in ctx.model.requests for i in r.body.get("input", []) if i.get("type") == kind]


@case(
    "tools.apply-patch",
    requires=["tools.apply-patch-file-change"],
    model=[
        script.reply(script.custom_tool_call("apply_patch", PATCH, call_id="call_patch_1")),
        script.text_reply("Added notes/new.txt and updated README.md.", deltas=2),
    ],
)
async def apply_patch(ctx: CaseContext) -> None:
    """The apply_patch transcript: a freeform patch adding one file and updating another."""
    client = await ctx.ready_client()
    (ctx.workdir / "README.md").write_text("# demo\nold text\n")
    thread_id = await ctx.start_thread(client, approvalPolicy="on-request", sandbox="workspace-write")
    mark, done = await finish_turn(client, thread_id, "add notes/new.txt and fix README")
    log = client.since(mark)
    started = [i["status"] for i in items(log, "item/started", "fileChange")]
    completed = items(log, "item/completed", "fileChange")
    kinds = sorted((c["path"].rsplit("/", 1)[-1], c["kind"]["type"]) for i in completed for c in i["changes"])
    req = "tools.apply-patch-file-change"
    ctx.expect(
        req, (started, [i["status"] for i in completed]), (["inProgress"], ["completed"]), "fileChange status"
    )
    ctx.expect(req, kinds, [("README.md", "update"), ("new.txt", "add")], "changes")
    ctx.check(req, bool(of_method(log, "turn/diff/updated")), "no turn/diff/updated")
    on_disk = ((ctx.workdir / "notes/new.txt").read_text(), (ctx.workdir / "README.md").read_text())
    ctx.expect(req, on_disk, ("first line\nsecond line\n", "# demo\nnew text\n"), "files")
    outputs = [o["call_id"] for o in tool_outputs(ctx, "custom_tool_call_output")]
    ctx.expect(
        req,
        (len(ctx.model.requests), outputs, done["params"]["turn"]["status"]),
        (2, ["call_patch_1"], "completed"),
        "(model requests, tool outputs, turn status)",
    )


@case(
    "tools.exec-command",
    requires=["tools.exec-command"],
    model=[
        script.reply(
            script.function_call(
                "exec_command",
                {"cmd": "echo conformance-ok", "login": False, "yield_time_ms": 30000},
                call_id="call_exec_1",
            )
        ),
        script.text_reply("The command printed conformance-ok.", deltas=2),
    ],
)
async def exec_command(ctx: CaseContext) -> None:
    """exec_command under danger-full-access and approvalPolicy never: no approval, output to the model."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client, approvalPolicy="never", sandbox="danger-full-access")
    mark, done = await finish_turn(client, thread_id, "run the command")
    log = client.since(mark)
    started = [i["status"] for i in items(log, "item/started", "commandExecution")]
    completed = items(log, "item/completed", "commandExecution")
    req = "tools.exec-command"
    shape = [
        (i["status"], i.get("exitCode"), "conformance-ok" in str(i.get("aggregatedOutput")))
        for i in completed
    ]
    ctx.expect(req, (started, shape), (["inProgress"], [("completed", 0, True)]), "commandExecution items")
    outputs = tool_outputs(ctx, "function_call_output")
    seen = [(o["call_id"], "conformance-ok" in json.dumps(o.get("output"))) for o in outputs]
    ctx.expect(
        req,
        (seen, done["params"]["turn"]["status"]),
        ([("call_exec_1", True)], "completed"),
        "(tool outputs sent to the model, turn status)",
    )


@case(
    "tools.exec-command-failure",
    requires=["tools.exec-command-failure"],
    model=[
        script.reply(
            script.function_call(
                "exec_command",
                {"cmd": "echo about to fail; exit 3", "login": False, "yield_time_ms": 30000},
                call_id="call_exec_fail",
            )
        ),
        script.text_reply("It failed with 3.", deltas=2),
    ],
)
async def exec_command_failure(ctx: CaseContext) -> None:
    """A command that exits 3 under danger-full-access."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client, approvalPolicy="never", sandbox="danger-full-access")
    mark, done = await finish_turn(client, thread_id, "run the failing command")
    completed = items(client.since(mark), "item/completed", "commandExecution")
    shape = [
        (i["status"], i.get("exitCode"), "about to fail" in str(i.get("aggregatedOutput"))) for i in completed
    ]
    ctx.expect(
        "tools.exec-command-failure",
        (shape, done["params"]["turn"]["status"], len(ctx.model.requests)),
        ([("failed", 3, True)], "completed", 2),
        "(commandExecution items, turn status, model requests)",
    )


PLAN = {
    "explanation": "Two steps.",
    "plan": [
        {"step": "Read the code", "status": "completed"},
        {"step": "Write the fix", "status": "in_progress"},
    ],
}


@case(
    "tools.update-plan",
    requires=["tools.update-plan"],
    model=[
        script.reply(script.function_call("update_plan", PLAN, call_id="call_plan_1")),
        script.text_reply("Plan noted.", deltas=2),
    ],
)
async def update_plan(ctx: CaseContext) -> None:
    """The model updates its plan."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client)
    mark, _ = await finish_turn(client, thread_id, "plan it")
    plans = [m["params"] for m in of_method(client.since(mark), "turn/plan/updated")]
    shape = [(p.get("explanation"), [(s["step"], s["status"]) for s in p.get("plan", [])]) for p in plans]
    expected = ("Two steps.", [("Read the code", "completed"), ("Write the fix", "inProgress")])
    ctx.expect("tools.update-plan", shape[-1:], [expected], "turn/plan/updated")
