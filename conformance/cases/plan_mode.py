"""Plan mode: the model's questions go to the user, its proposed plan becomes a `plan` item."""

from __future__ import annotations

from conformance.context import CaseContext, text_input
from conformance.manifest import case
from conformance.shape import items, label, of_method
from tether_testing import script

PLAN_TEXT = "I looked around.\n<proposed_plan>\n# Plan\n\n- step one\n- step two\n</proposed_plan>\n"
QUESTION = {
    "id": "scope",
    "header": "Scope",
    "question": "Which module first?",
    "options": [
        {"label": "core (Recommended)", "description": "The core loop."},
        {"label": "cli", "description": "The command line."},
    ],
}
ANSWER = {"answers": {"scope": {"answers": ["core (Recommended)"]}}}
ASK = "item/tool/requestUserInput"


@case(
    "plan.ask-then-propose",
    requires=["plan.request-user-input", "plan.plan-item"],
    model=[
        script.reply(script.function_call("request_user_input", {"questions": [QUESTION]}, "call_rui_1")),
        script.reply(script.message(PLAN_TEXT, deltas=8)),
    ],
)
async def ask_then_propose(ctx: CaseContext) -> None:
    """The plan_mode transcript: a plan-mode turn asks one question, then proposes a plan."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client)
    mode = {"mode": "plan", "settings": {"model": "gpt-5.5", "developer_instructions": None}}
    mark = client.mark()
    started = await client.request(
        "turn/start", {"threadId": thread_id, "input": text_input("plan the work"), "collaborationMode": mode}
    )
    turn_id = started["turn"]["id"]
    ask = await client.wait_for(
        lambda m: m.get("method") == "turn/completed" or (m.get("method") == ASK and "id" in m), after=mark
    )
    if ask.get("method") != ASK:
        ctx.check("plan.request-user-input", False, "no item/tool/requestUserInput before turn/completed")
    else:
        params = ask["params"]
        log = client.since(mark)
        before = [label(m) for m in log[: log.index(ask)]]
        shape = (
            params["itemId"],
            [(q["id"], q["isOther"], len(q.get("options") or [])) for q in params["questions"]],
            params["isBlocking"],
            "status active[waitingOnUserInput]" in before,
        )
        ctx.expect("plan.request-user-input", shape, ("call_rui_1", [("scope", True, 2)], True, True), "ask")
        await client.respond(ask["id"], ANSWER)
    await client.notification("turn/completed", after=mark)
    log = client.since(mark)
    if ask.get("method") == ASK:
        resolved = [m["params"].get("requestId") for m in of_method(log, "serverRequest/resolved")]
        outputs = [
            i.get("output")
            for i in ctx.model.requests[-1].body["input"]
            if i.get("type") == "function_call_output" and i.get("call_id") == "call_rui_1"
        ]
        answered = (resolved, outputs)
        expected = ([ask["id"]], ['{"answers":{"scope":{"answers":["core (Recommended)"]}}}'])
        ctx.expect("plan.request-user-input", answered, expected, "resolution and the model's output")
    plan_id = f"{turn_id}-plan"
    deltas = [m["params"]["delta"] for m in of_method(log, "item/plan/delta")]
    completed = [m["params"]["item"] for m in of_method(log, "item/completed")]
    done = [(i["type"], i.get("text")) for i in completed if i["type"] != "userMessage"]
    shape_plan = (
        [i["id"] for i in items(log, "item/started", "plan")],
        "".join(deltas),
        done,
    )
    expected_plan = (
        [plan_id],
        "# Plan\n\n- step one\n- step two\n",
        [("plan", "# Plan\n\n- step one\n- step two\n"), ("agentMessage", "I looked around.\n")],
    )
    ctx.expect("plan.plan-item", shape_plan, expected_plan, "plan item, its deltas, the items completed")
