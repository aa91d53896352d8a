"""Server-initiated approval requests for commands: accept and decline."""

from __future__ import annotations

from conformance.client import Client, Message
from conformance.context import CaseContext, text_input
from conformance.manifest import case
from conformance.shape import flow, is_subsequence, items, label, of_method
from tether_testing import script

APPROVAL = "item/commandExecution/requestApproval"


def escalated_write() -> list[dict[str, object]]:
    """The model asks to write out.txt with escalated permissions, then answers."""
    args = {
        "cmd": "echo hi > out.txt && cat out.txt",
        "login": False,
        "sandbox_permissions": "require_escalated",
        "justification": "Allow writing out.txt in the workspace?",
    }
    return [
        script.reply(
            script.reasoning(["**Writing the file**\n\nThe sandbox is read-only, so I will ask."]),
            script.function_call("exec_command", args, call_id="call_shell_1"),
        ),
        script.text_reply("Done with out.txt.", deltas=3),
    ]


async def until_approval(client: Client, ctx: CaseContext, thread_id: str) -> tuple[int, Message]:
    """Start the turn; return (mark, the approval request or turn/completed if none came)."""
    mark = client.mark()
    await client.request("turn/start", {"threadId": thread_id, "input": text_input("write hi into out.txt")})
    found = await client.wait_for(
        lambda m: m.get("method") == "turn/completed" or (m.get("method") == APPROVAL and "id" in m),
        after=mark,
    )
    return mark, found


async def request_shape(
    ctx: CaseContext, client: Client, mark: int, request: Message, answer_req: str
) -> bool:
    """Check the approval request and what preceded it; without one, `answer_req` fails too."""
    log = client.since(mark)
    if request.get("method") != APPROVAL:
        why = f"no approval request before turn/completed; flow: {flow(log)}"
        ctx.check("approvals.command-request", False, why)
        ctx.check(answer_req, False, "no approval request to answer")
        return False
    labels = [label(m) for m in log[: log.index(request)]]
    expected = ["status active[waitingOnApproval]", "item/started commandExecution"]
    return ctx.check(
        "approvals.command-request", is_subsequence(expected, labels), f"before the request: {labels}"
    )


@case(
    "approvals.accept",
    requires=["approvals.command-request", "approvals.command-accept", "approvals.request-id-integer"],
    model=escalated_write(),
)
async def accept(ctx: CaseContext) -> None:
    """The shell_approved transcript: read-only sandbox, on-request, the user accepts."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client, approvalPolicy="on-request", sandbox="read-only")
    mark, request = await until_approval(client, ctx, thread_id)
    if not await request_shape(ctx, client, mark, request, "approvals.command-accept"):
        return
    rid = request["id"]
    ctx.check(
        "approvals.request-id-integer", isinstance(rid, int) and not isinstance(rid, bool), f"id {rid!r}"
    )
    answer_mark = client.mark()
    await client.respond(request["id"], {"decision": "accept"})
    done = await client.notification("turn/completed", after=mark)
    after = client.since(answer_mark)
    resolved = [m["params"].get("requestId") for m in of_method(after, "serverRequest/resolved")]
    statuses = [i["status"] for i in items(after, "item/completed", "commandExecution")]
    wrote = (ctx.workdir / "out.txt").is_file()
    ctx.expect(
        "approvals.command-accept",
        (resolved, statuses, wrote, done["params"]["turn"]["status"]),
        ([request["id"]], ["completed"], True, "completed"),
        "(resolved ids, item status, file, turn)",
    )


@case(
    "approvals.decline",
    requires=["approvals.command-request", "approvals.command-decline"],
    model=escalated_write(),
)
async def decline(ctx: CaseContext) -> None:
    """The shell_declined transcript: the user declines; the model is told and answers."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client, approvalPolicy="on-request", sandbox="read-only")
    mark, request = await until_approval(client, ctx, thread_id)
    if not await request_shape(ctx, client, mark, request, "approvals.command-decline"):
        return
    answer_mark = client.mark()
    await client.respond(request["id"], {"decision": "decline"})
    done = await client.notification("turn/completed", after=mark)
    after = client.since(answer_mark)
    resolved = [m["params"].get("requestId") for m in of_method(after, "serverRequest/resolved")]
    statuses = [i["status"] for i in items(after, "item/completed", "commandExecution")]
    wrote = (ctx.workdir / "out.txt").exists()
    ctx.expect(
        "approvals.command-decline",
        (resolved, statuses, wrote, done["params"]["turn"]["status"]),
        ([request["id"]], ["declined"], False, "completed"),
        "(resolved ids, item status, file, turn)",
    )


@case(
    "approvals.cancel",
    requires=["approvals.command-request", "approvals.command-cancel"],
    model=escalated_write(),
)
async def cancel(ctx: CaseContext) -> None:
    """The user cancels: the turn ends interrupted."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client, approvalPolicy="on-request", sandbox="read-only")
    mark, request = await until_approval(client, ctx, thread_id)
    if not await request_shape(ctx, client, mark, request, "approvals.command-cancel"):
        return
    answer_mark = client.mark()
    await client.respond(request["id"], {"decision": "cancel"})
    done = await client.notification("turn/completed", after=mark)
    resolved = [
        m["params"].get("requestId") for m in of_method(client.since(answer_mark), "serverRequest/resolved")
    ]
    ctx.expect(
        "approvals.command-cancel",
        (resolved, done["params"]["turn"]["status"], (ctx.workdir / "out.txt").exists()),
        ([request["id"]], "interrupted", False),
        "(resolved ids, turn status, file written)",
    )


@case(
    "approvals.error-reply",
    requires=["approvals.command-request", "approvals.command-error-reply"],
    model=escalated_write(),
)
async def error_reply(ctx: CaseContext) -> None:
    """The client answers the approval request with a JSON-RPC error."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client, approvalPolicy="on-request", sandbox="read-only")
    mark, request = await until_approval(client, ctx, thread_id)
    if not await request_shape(ctx, client, mark, request, "approvals.command-error-reply"):
        return
    answer_mark = client.mark()
    await client.send({"id": request["id"], "error": {"code": -32000, "message": "client cannot decide"}})
    done = await client.notification("turn/completed", after=mark)
    statuses = [i["status"] for i in items(client.since(answer_mark), "item/completed", "commandExecution")]
    ctx.expect(
        "approvals.command-error-reply",
        (statuses, done["params"]["turn"]["status"]),
        (["failed"], "completed"),
        "(item status, turn status)",
    )


@case(
    "approvals.interrupt",
    requires=["approvals.command-request", "approvals.interrupt-resolves"],
    model=escalated_write(),
)
async def interrupt_pending(ctx: CaseContext) -> None:
    """`turn/interrupt` while the approval request is unanswered."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client, approvalPolicy="on-request", sandbox="read-only")
    mark, request = await until_approval(client, ctx, thread_id)
    if not await request_shape(ctx, client, mark, request, "approvals.interrupt-resolves"):
        return
    answer_mark = client.mark()
    turn_id = request["params"]["turnId"]
    await client.request("turn/interrupt", {"threadId": thread_id, "turnId": turn_id})
    done = await client.notification("turn/completed", after=mark)
    resolved = [
        m["params"].get("requestId") for m in of_method(client.since(answer_mark), "serverRequest/resolved")
    ]
    ctx.expect(
        "approvals.interrupt-resolves",
        (resolved, done["params"]["turn"]["status"]),
        ([request["id"]], "interrupted"),
        "(resolved ids, turn status)",
    )


OUTSIDE_PATCH = "*** Begin Patch\n*** Add File: created.txt\n+made with approval\n*** End Patch"


@case(
    "approvals.file-change",
    requires=["approvals.file-change"],
    model=[
        script.reply(script.custom_tool_call("apply_patch", OUTSIDE_PATCH, call_id="call_patch_ro")),
        script.text_reply("Created it.", deltas=2),
    ],
)
async def file_change(ctx: CaseContext) -> None:
    """apply_patch in a read-only sandbox asks for approval; the user accepts."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client, approvalPolicy="on-request", sandbox="read-only")
    mark = client.mark()
    await client.request("turn/start", {"threadId": thread_id, "input": text_input("create created.txt")})
    request = await client.wait_for(
        lambda m: (
            m.get("method") == "turn/completed"
            or (m.get("method") == "item/fileChange/requestApproval" and "id" in m)
        ),
        after=mark,
    )
    req = "approvals.file-change"
    log = client.since(mark)
    if not ctx.check(req, "id" in request, f"no approval request; flow {flow(log)}"):
        return
    before = [label(m) for m in log[: log.index(request)]]
    ctx.check(req, "item/started fileChange" in before, f"before the request: {before}")
    answer_mark = client.mark()
    await client.respond(request["id"], {"decision": "accept"})
    done = await client.notification("turn/completed", after=mark)
    after = client.since(answer_mark)
    resolved = [m["params"].get("requestId") for m in of_method(after, "serverRequest/resolved")]
    statuses = [i["status"] for i in items(after, "item/completed", "fileChange")]
    created = (ctx.workdir / "created.txt").is_file()
    ctx.expect(
        req,
        (resolved, statuses, created, done["params"]["turn"]["status"]),
        ([request["id"]], ["completed"], True, "completed"),
        "(resolved ids, item status, file, turn status)",
    )
