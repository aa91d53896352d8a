"""Several clients on one listener: independent handshakes, fan-out, broadcast, replay on resume."""

from __future__ import annotations

from conformance.context import CaseContext, text_input
from conformance.manifest import case
from conformance.shape import flow
from tether_testing import script

SOCKETS = ("unix", "ws")
APPROVAL = "item/commandExecution/requestApproval"


@case(
    "multiclient.two-clients",
    requires=[
        "multiclient.listener",
        "multiclient.fan-out",
        "multiclient.broadcast",
        "multiclient.status-broadcast",
        "multiclient.unsubscribe",
    ],
    model=[
        script.text_reply("One.", deltas=2),
        script.text_reply("Two, for both of you.", deltas=3),
        script.text_reply("Three, for A only.", deltas=2),
    ],
    transports=SOCKETS,
    clients=2,
)
async def two_clients(ctx: CaseContext) -> None:
    """Client A works on a thread; client B joins it with thread/resume and watches."""
    a = await ctx.connect("A")
    b = await ctx.connect("B")
    first = await ctx.initialize(a, name="client_a")
    second = await ctx.initialize(b, name="client_b")
    ctx.check("multiclient.listener", "userAgent" in first and "userAgent" in second, f"{first} / {second}")
    b_mark = b.mark()
    thread_id = await ctx.start_thread(a)
    started = await b.notification("thread/started", after=b_mark)
    ctx.expect("multiclient.broadcast", started["params"]["thread"]["id"], thread_id, "thread/started on B")
    b_mark = b.mark()
    await ctx.run_turn(a, thread_id, "first")
    statuses = [m for m in b.since(b_mark) if m.get("method") == "thread/status/changed"]
    ctx.check("multiclient.status-broadcast", bool(statuses), "B saw no thread/status/changed of A's turn")
    await b.request("thread/resume", {"threadId": thread_id})
    b_mark = b.mark()
    await a.request("thread/name/set", {"threadId": thread_id, "name": "shared"})
    renamed = await b.notification("thread/name/updated", after=b_mark)
    ctx.expect(
        "multiclient.broadcast", renamed["params"].get("threadName"), "shared", "thread/name/updated on B"
    )
    b_mark = b.mark()
    a_mark, _ = await ctx.run_turn(a, thread_id, "second")
    await b.notification("turn/completed", after=b_mark)
    ctx.expect("multiclient.fan-out", flow(b.since(b_mark)), flow(a.since(a_mark)), "B's turn flow vs A's")
    unsubscribed = await b.request("thread/unsubscribe", {"threadId": thread_id})
    b_mark = b.mark()
    a_mark, _ = await ctx.run_turn(a, thread_id, "third")
    await b.call("thread/loaded/list", {})  # a sentinel: B's queue has caught up with the turn
    leaked = [m["method"] for m in b.since(b_mark) if str(m.get("method", "")).startswith(("turn/", "item/"))]
    ctx.expect(
        "multiclient.unsubscribe",
        (unsubscribed.get("status"), leaked, "turn/completed" in [m.get("method") for m in a.since(a_mark)]),
        ("unsubscribed", [], True),
        "(unsubscribe status, turn/item notifications B still got, A's turn completed)",
    )


@case(
    "reconnect.pending-approval",
    requires=["reconnect.pending-request-replayed"],
    model=[
        script.reply(
            script.function_call(
                "exec_command",
                {
                    "cmd": "echo hi > out.txt",
                    "sandbox_permissions": "require_escalated",
                    "justification": "ok?",
                },
                call_id="call_replay_1",
            )
        ),
        script.text_reply("Wrote it.", deltas=2),
    ],
    transports=SOCKETS,
    clients=2,
)
async def pending_approval_replayed(ctx: CaseContext) -> None:
    """A disconnects while an approval is pending; B resumes the thread, gets the request, answers."""
    a = await ctx.ready_client("A")
    thread_id = await ctx.start_thread(a, approvalPolicy="on-request", sandbox="read-only")
    mark = a.mark()
    await a.request("turn/start", {"threadId": thread_id, "input": text_input("write out.txt")})
    request = await a.wait_for(
        lambda m: m.get("method") == "turn/completed" or (m.get("method") == APPROVAL and "id" in m),
        after=mark,
    )
    req = "reconnect.pending-request-replayed"
    if not ctx.check(
        req, request.get("method") == APPROVAL, f"no approval request; flow {flow(a.since(mark))}"
    ):
        return
    await a.close()
    b = await ctx.ready_client("B")
    b_mark = b.mark()
    await b.request("thread/resume", {"threadId": thread_id})
    replayed = await b.server_request(APPROVAL, after=b_mark)
    ctx.expect(req, replayed["id"], request["id"], "replayed request id")
    await b.respond(replayed["id"], {"decision": "accept"})
    done = await b.notification("turn/completed", after=b_mark)
    ctx.expect(req, done["params"]["turn"]["status"], "completed", "turn after the answer")
