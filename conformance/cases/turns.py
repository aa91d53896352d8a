"""Turn lifecycle and item order: text reply, steer, interrupt, upstream failure, reasoning."""

from __future__ import annotations

from conformance.context import CaseContext, text_input
from conformance.manifest import case
from conformance.shape import error_code, flow, is_subsequence, items, label, of_method
from tether_testing import script

REPLY = "Hello! I am a scripted mock model."
TEXT_FLOW = [
    "status active",
    "turn/started",
    "item/started userMessage",
    "item/completed userMessage",
    "item/started agentMessage",
    "item/agentMessage/delta+",
    "item/completed agentMessage",
    "status idle",
    "turn/completed completed",
]


@case(
    "turn.simple",
    requires=[
        "turn.start-result",
        "turn.text-reply-order",
        "turn.deltas-concatenate",
        "turn.token-usage",
        "turn.completed-summary",
    ],
    model=[script.text_reply(REPLY, deltas=5)],
)
async def simple_turn(ctx: CaseContext) -> None:
    """The simple_turn transcript: one text reply streamed in five deltas."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client)
    mark = client.mark()
    result = await client.request("turn/start", {"threadId": thread_id, "input": text_input("hello")})
    ctx.expect(
        "turn.start-result", (result["turn"]["status"], result["turn"]["items"]), ("inProgress", []), "turn"
    )
    done = await client.notification("turn/completed", after=mark)
    log = client.since(mark)
    ctx.expect("turn.text-reply-order", flow(log), TEXT_FLOW, "notification order")
    deltas = "".join(m["params"]["delta"] for m in of_method(log, "item/agentMessage/delta"))
    completed = items(log, "item/completed", "agentMessage")
    ctx.expect("turn.deltas-concatenate", (deltas, [i["text"] for i in completed]), (REPLY, [REPLY]), "text")
    labels = [label(m) for m in log]
    ctx.check(
        "turn.token-usage",
        is_subsequence(["thread/tokenUsage/updated", "turn/completed completed"], labels),
        f"order {labels}",
    )
    turn = done["params"]["turn"]
    shape = (turn["status"], [(i["type"], i.get("text")) for i in turn["items"]], turn.get("itemsView"))
    ctx.expect("turn.completed-summary", shape, ("completed", [("agentMessage", REPLY)], "summary"), "turn")


@case(
    "turn.steer",
    requires=["turn.steer", "turn.steer-wrong-turn", "turn.steer-idle"],
    model=[
        script.reply(script.message("Working on it.", deltas=2), script.gated("steer")),
        script.text_reply("Steered: using the new instruction.", deltas=3),
    ],
)
async def steer(ctx: CaseContext) -> None:
    """The steer transcript: steer mid-turn, a wrong expectedTurnId, then steer when idle."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client)
    mark = client.mark()
    turn_id = (await client.request("turn/start", {"threadId": thread_id, "input": text_input("start")}))[
        "turn"
    ]["id"]
    await client.notification("item/agentMessage/delta", after=mark)
    await ctx.model.wait_for_gate("steer", within_s=20)
    steer_mark = client.mark()
    steered = await client.request(
        "turn/steer",
        {"threadId": thread_id, "expectedTurnId": turn_id, "input": text_input("also add tests")},
    )
    wrong = await client.call(
        "turn/steer", {"threadId": thread_id, "expectedTurnId": "wrong", "input": text_input("nope")}
    )
    ctx.expect("turn.steer-wrong-turn", error_code(wrong), -32600, "steer with a wrong expectedTurnId")
    ctx.model.release("steer")
    done = await client.notification("turn/completed", after=mark)
    after = client.since(steer_mark)
    steer_items = [
        i
        for i in items(after, "item/completed", "userMessage")
        if any(c.get("text") == "also add tests" for c in i["content"])
    ]
    ctx.expect(
        "turn.steer",
        (steered, len(steer_items), done["params"]["turn"]["status"]),
        ({"turnId": turn_id}, 1, "completed"),
        "(result, steer userMessage items, turn status)",
    )
    ctx.check(
        "turn.steer",
        is_subsequence(["item/completed userMessage", "item/completed agentMessage"], flow(after)),
        f"after steer: {flow(after)}",
    )
    idle = await client.call(
        "turn/steer", {"threadId": thread_id, "expectedTurnId": turn_id, "input": text_input("late")}
    )
    ctx.expect("turn.steer-idle", error_code(idle), -32600, "steer with no active turn")


@case(
    "turn.interrupt",
    requires=["turn.interrupt", "turn.interrupt-idle", "turn.after-interrupt", "turn.interrupted-no-error"],
    model=[
        script.reply(script.message("This will be cut short.", deltas=3), script.gated("never")),
        script.text_reply("Fresh turn.", deltas=2),
    ],
)
async def interrupt(ctx: CaseContext) -> None:
    """The interrupt transcript: interrupt mid-stream, interrupt again, then a new turn."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client)
    mark = client.mark()
    turn_id = (await client.request("turn/start", {"threadId": thread_id, "input": text_input("go")}))[
        "turn"
    ]["id"]
    await client.notification("item/agentMessage/delta", after=mark)
    interrupt_mark = client.mark()
    result = await client.request("turn/interrupt", {"threadId": thread_id, "turnId": turn_id})
    done = await client.notification("turn/completed", after=mark)
    tail = flow(client.since(interrupt_mark))
    ctx.expect(
        "turn.interrupt", (result, done["params"]["turn"]["status"]), ({}, "interrupted"), "result, status"
    )
    ctx.check(
        "turn.interrupt", is_subsequence(["status idle", "turn/completed interrupted"], tail), f"flow {tail}"
    )
    ctx.expect("turn.interrupted-no-error", done["params"]["turn"].get("error", "absent"), None, "turn error")
    again = await client.call("turn/interrupt", {"threadId": thread_id, "turnId": turn_id})
    ctx.expect("turn.interrupt-idle", error_code(again), -32600, "interrupt with no active turn")
    _, fresh = await ctx.run_turn(client, thread_id, "again")
    ctx.expect("turn.after-interrupt", fresh["params"]["turn"]["status"], "completed", "next turn")


@case(
    "turn.failed-upstream",
    requires=["turn.failed-upstream", "turn.failed-system-error"],
    model=[script.failed("context_length_exceeded", "Your input exceeds the context window of this model.")],
)
async def failed_upstream(ctx: CaseContext) -> None:
    """The model's stream ends in `response.failed` (not retryable)."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client)
    mark, done = await ctx.run_turn(client, thread_id, "too much")
    errors = of_method(client.since(mark), "error")
    turn = done["params"]["turn"]
    ctx.check(
        "turn.failed-upstream",
        bool(errors) and errors[-1]["params"].get("willRetry") is False,
        f"error notifications {errors}",
    )
    ctx.expect(
        "turn.failed-upstream", (turn["status"], turn.get("error") is not None), ("failed", True), "turn"
    )
    labels = [label(m) for m in client.since(mark)]
    ctx.check(
        "turn.failed-system-error",
        is_subsequence(["status systemError", "turn/completed failed"], labels),
        f"order {labels}",
    )
    ctx.check(
        "turn.failed-upstream", is_subsequence(["error", "turn/completed failed"], labels), f"order {labels}"
    )


@case(
    "turn.reasoning",
    requires=["turn.reasoning-item", "turn.client-message-id"],
    model=[
        script.reply(script.reasoning(["**Planning**\n\nLook first, then answer."]), script.message("Done."))
    ],
)
async def reasoning(ctx: CaseContext) -> None:
    """A reasoning item with a summary, then a message."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client)
    mark, _ = await ctx.run_turn(client, thread_id, "think", clientUserMessageId="client-msg-1")
    users = [i.get("clientId") for i in items(client.since(mark), "item/completed", "userMessage")]
    ctx.expect("turn.client-message-id", users, ["client-msg-1"], "userMessage clientId")
    expected = [
        "item/started reasoning",
        "item/reasoning/summaryTextDelta+",
        "item/completed reasoning",
        "item/started agentMessage",
        "item/completed agentMessage",
    ]
    ctx.check(
        "turn.reasoning-item",
        is_subsequence(expected, flow(client.since(mark))),
        f"flow {flow(client.since(mark))}",
    )
    summary = [i.get("summary") for i in items(client.since(mark), "item/completed", "reasoning")]
    ctx.expect(
        "turn.reasoning-item", summary, [["**Planning**\n\nLook first, then answer."]], "reasoning summary"
    )


@case(
    "turn.start-while-active",
    requires=["turn.start-while-active-steers"],
    model=[
        script.reply(script.message("Busy.", deltas=2), script.gated("second")),
        script.text_reply("Handled both.", deltas=2),
    ],
)
async def start_while_active(ctx: CaseContext) -> None:
    """A second `turn/start` while the first turn is still streaming."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client)
    mark = client.mark()
    first = await client.request("turn/start", {"threadId": thread_id, "input": text_input("first")})
    await ctx.model.wait_for_gate("second", within_s=20)
    second = await client.request("turn/start", {"threadId": thread_id, "input": text_input("second input")})
    ctx.model.release("second")
    await client.notification("turn/completed", after=mark)
    log = client.since(mark)
    users = [
        c.get("text")
        for i in items(log, "item/completed", "userMessage")
        for c in i["content"]
        if "text" in c
    ]
    turns = {m["params"]["turn"]["id"] for m in of_method(log, "turn/started")}
    ctx.expect(
        "turn.start-while-active-steers",
        (second["turn"]["id"] == first["turn"]["id"], users, len(turns)),
        (True, ["first", "second input"], 1),
        "(same turn id, user messages, turns started)",
    )


@case(
    "turn.overrides-persist",
    requires=["turn.overrides-persist"],
    model=[script.text_reply("First.", deltas=1), script.text_reply("Second.", deltas=1)],
)
async def overrides_persist(ctx: CaseContext) -> None:
    """A per-turn model override, then a turn without overrides."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client)
    await ctx.run_turn(client, thread_id, "with override", model="gpt-override-test")
    await ctx.run_turn(client, thread_id, "without override")
    models = [r.body.get("model") for r in ctx.model.requests]
    ctx.expect("turn.overrides-persist", models, ["gpt-override-test"] * 2, "models requested")
