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
    requires=["approvals.command-request", "approvals.command-accept"],
    model=escalated_write(),
)
async def accept(ctx: CaseContext) -> None:
    """The shell_approved transcript: read-only sandbox, on-request, the user accepts."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client, approvalPolicy="on-request", sandbox="read-only")
    mark, request = await until_approval(client, ctx, thread_id)
    if not await request_shape(ctx, client, mark, request, "approvals.command-accept"):
        return
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
