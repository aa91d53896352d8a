"""Handshake: the initialize gate, the initialize result, and the envelope around it."""

from __future__ import annotations

import re

from conformance.context import CaseContext
from conformance.manifest import case
from conformance.shape import error_code

UA = re.compile(r"^conformance_ua/\S+ \(.+; \S+\) \S.* \(conformance_ua; 9\.8\.7\)$")


@case(
    "handshake.sequence",
    requires=[
        "handshake.not-initialized",
        "handshake.early-initialized-ignored",
        "handshake.initialize-result",
        "handshake.user-agent",
        "handshake.initialized-optional",
        "handshake.already-initialized",
    ],
)
async def handshake_sequence(ctx: CaseContext) -> None:
    """The handshake_errors transcript's first steps: before, during and after initialize."""
    client = await ctx.connect()
    early = await client.call("thread/list", {})
    ctx.expect(
        "handshake.not-initialized",
        (error_code(early), early.get("error", {}).get("message")),
        (-32600, "Not initialized"),
        "reply to thread/list before initialize",
    )
    mark = client.mark()
    await client.notify("initialized")
    info = {"name": "conformance_ua", "title": None, "version": "9.8.7"}
    init = await client.call("initialize", {"clientInfo": info})
    before_init = [m for m in client.since(mark)[: client.since(mark).index(init)] if "id" in m]
    ctx.check(
        "handshake.early-initialized-ignored",
        not before_init and "result" in init,
        f"replies to the early `initialized`: {before_init}; initialize: {init}",
    )
    result = init.get("result") or {}
    ctx.expect(
        "handshake.initialize-result",
        sorted(result),
        ["codexHome", "platformFamily", "platformOs", "userAgent"],
        "initialize result keys",
    )
    ctx.check(
        "handshake.user-agent",
        bool(UA.match(str(result.get("userAgent")))),
        f"userAgent {result.get('userAgent')!r}",
    )
    listed = await client.call("thread/list", {})
    ctx.check(
        "handshake.initialized-optional",
        isinstance(listed.get("result", {}).get("data"), list),
        f"thread/list before `initialized`: {listed}",
    )
    await client.notify("initialized")
    again = await client.call("initialize", {"clientInfo": info})
    ctx.expect(
        "handshake.already-initialized",
        (error_code(again), again.get("error", {}).get("message")),
        (-32600, "Already initialized"),
        "second initialize",
    )


@case("envelope.ids", requires=["envelope.string-id", "envelope.jsonrpc-member-accepted"])
async def envelope_ids(ctx: CaseContext) -> None:
    """String ids come back verbatim; a `jsonrpc` member in a request is harmless."""
    client = await ctx.ready_client()
    reply = await client.call("thread/list", {}, request_id="string-id-1")
    ctx.check("envelope.string-id", reply.get("id") == "string-id-1" and "result" in reply, f"reply {reply}")
    mark = client.mark()
    await client.send({"jsonrpc": "2.0", "id": 4242, "method": "thread/list", "params": {}})
    answered = await client.reply_to(4242, after=mark)
    ctx.check("envelope.jsonrpc-member-accepted", "result" in answered, f"reply {answered}")
