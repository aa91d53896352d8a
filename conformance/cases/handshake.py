"""Handshake: the initialize gate, the initialize result, and the envelope around it."""

from __future__ import annotations

import re

from conformance.context import CLIENT_INFO, CaseContext
from conformance.manifest import case
from conformance.shape import error_code
from tether_testing import script

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


@case("handshake.invalid-client-name", requires=["handshake.invalid-client-name"])
async def invalid_client_name(ctx: CaseContext) -> None:
    """`clientInfo.name` with a carriage return in it."""
    client = await ctx.connect()
    reply = await client.call(
        "initialize", {"clientInfo": {"name": "bad\rname", "title": None, "version": "1"}}
    )
    message = str(reply.get("error", {}).get("message"))
    ctx.check(
        "handshake.invalid-client-name",
        error_code(reply) == -32600 and message.startswith("Invalid clientInfo.name"),
        f"reply {reply}",
    )


@case("experimental.gating", requires=["experimental.method-gated", "experimental.field-gated"])
async def experimental_gating(ctx: CaseContext) -> None:
    """Without experimentalApi: an experimental method, then an experimental field of a stable one."""
    client = await ctx.connect()
    await ctx.initialize(client, experimental=False)
    method = await client.call("collaborationMode/list", {})
    ctx.expect(
        "experimental.method-gated",
        (error_code(method), method.get("error", {}).get("message")),
        (-32600, "collaborationMode/list requires experimentalApi capability"),
        "reply",
    )
    field = await client.call("thread/start", {"cwd": str(ctx.workdir), "mockExperimentalField": "x"})
    ctx.expect(
        "experimental.field-gated",
        (error_code(field), field.get("error", {}).get("message")),
        (-32600, "thread/start.mockExperimentalField requires experimentalApi capability"),
        "reply",
    )


@case(
    "notifications.opt-out",
    requires=["notifications.opt-out"],
    model=[script.text_reply("Quiet.", deltas=2)],
)
async def opt_out(ctx: CaseContext) -> None:
    """A connection opting out of thread/status/changed runs a turn without seeing one."""
    client = await ctx.connect()
    caps = {"experimentalApi": True, "optOutNotificationMethods": ["thread/status/changed"]}
    await client.request("initialize", {"clientInfo": {**CLIENT_INFO}, "capabilities": caps})
    await client.notify("initialized")
    thread_id = await ctx.start_thread(client)
    _, done = await ctx.run_turn(client, thread_id, "hello")
    seen = [m for m in client.messages if m.get("method") == "thread/status/changed"]
    ctx.check(
        "notifications.opt-out",
        not seen and done["params"]["turn"]["status"] == "completed",
        f"{len(seen)} thread/status/changed received",
    )
