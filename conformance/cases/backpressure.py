"""Backpressure: a flood of pipelined requests meets -32001, and the connection survives."""

from __future__ import annotations

import json

from conformance.context import CaseContext
from conformance.manifest import case
from conformance.shape import error_code

OVERLOADED = (-32001, "Server overloaded; retry later.")
QUIET_S = 3.0


@case("backpressure.flood", requires=["backpressure.overloaded"])
async def flood(ctx: CaseContext) -> None:
    """`--flood` pipelined `thread/list` requests (each a store query), written at once."""
    client = await ctx.ready_client()
    # A stdio server may answer `initialize` while it still loads; the flood must meet a server
    # that serves (its quiet-time bound is about backpressure, not start-up).
    await client.call("thread/list", {}, request_id="before-flood")
    count = int(ctx.options.get("flood", 20000))
    ids = [f"flood-{n}" for n in range(count)]
    frames = [json.dumps({"id": rid, "method": "thread/list", "params": {}}).encode() for rid in ids]
    client.expect_replies(ids, "thread/list")
    mark = client.mark()
    if ctx.transport == "stdio":
        await client.send_raw(b"\n".join(frames))
    else:
        for frame in frames:
            await client.send_raw(frame)
    wanted = set(ids)
    while sum(1 for m in client.since(mark) if m.get("id") in wanted) < count:
        if not await client.quiet(QUIET_S):
            break  # the overload errors themselves may be dropped when the outbound queue is full
    replies = [m for m in client.since(mark) if m.get("id") in wanted]
    errors = [(error_code(m), m["error"].get("message")) for m in replies if "error" in m]
    results = sum(1 for m in replies if "result" in m)
    survived = "result" in await client.call("thread/list", {}, request_id="after-flood")
    summary = f"{results} results, {len(errors)} errors ({set(errors)}), {count - len(replies)} unanswered"
    ok = OVERLOADED in errors and all(e == OVERLOADED for e in errors) and results > 0 and survived
    ctx.check("backpressure.overloaded", ok, summary + ("" if survived else "; sentinel unanswered"))
