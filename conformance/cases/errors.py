"""Error replies, and the frames a server must survive."""

from __future__ import annotations

from conformance.client import Client
from conformance.context import CaseContext
from conformance.manifest import case
from conformance.shape import error_code

UNKNOWN_THREAD = "019a0000-0000-7000-8000-000000000000"


async def usable(client: Client, tag: str) -> bool:
    """A sentinel request still gets its result."""
    reply = await client.call("thread/list", {}, request_id=f"sentinel-{tag}")
    return "result" in reply


@case(
    "errors.unknown-method",
    requires=["errors.unknown-method-answered", "errors.unknown-method-32600", "errors.unknown-method-32601"],
)
async def unknown_method(ctx: CaseContext) -> None:
    """`no/such/method` is answered with an error carrying the same id."""
    client = await ctx.ready_client()
    reply = await client.call("no/such/method", {}, request_id=505)
    ok = reply.get("id") == 505 and "error" in reply and await usable(client, "unknown")
    ctx.check("errors.unknown-method-answered", ok, f"reply {reply}")
    ctx.expect("errors.unknown-method-32600", error_code(reply), -32600, "code")
    ctx.expect("errors.unknown-method-32601", error_code(reply), -32601, "code")


@case(
    "errors.bad-params",
    requires=["errors.bad-params-answered", "errors.bad-params-32600", "errors.bad-params-32602"],
)
async def bad_params(ctx: CaseContext) -> None:
    """A wrong type (thread/start cwd: 12345) and a missing field (turn/start without input)."""
    client = await ctx.ready_client()
    mark = client.mark()
    wrong_type = await client.call("thread/start", {"cwd": 12345})
    missing = await client.call("turn/start", {"threadId": UNKNOWN_THREAD})
    codes = [error_code(wrong_type), error_code(missing)]
    named = "input" in str(missing.get("error", {}).get("message"))
    started = [m for m in client.since(mark) if m.get("method") == "thread/started"]
    ctx.check(
        "errors.bad-params-answered",
        all(c in (-32600, -32602) for c in codes) and named and not started,
        f"replies {wrong_type} / {missing}; thread/started sent: {bool(started)}",
    )
    ctx.expect("errors.bad-params-32600", codes, [-32600, -32600], "codes")
    ctx.expect("errors.bad-params-32602", codes, [-32602, -32602], "codes")


@case("errors.missing-params", requires=["errors.missing-params-rejected", "errors.missing-params-as-empty"])
async def missing_params(ctx: CaseContext) -> None:
    """`{"id": n, "method": "thread/list"}` with no params member."""
    client = await ctx.ready_client()
    reply = await client.call("thread/list", omit_params=True)
    message = str(reply.get("error", {}).get("message"))
    ctx.check(
        "errors.missing-params-rejected",
        error_code(reply) == -32600 and "params" in message,
        f"reply {reply}",
    )
    ctx.check(
        "errors.missing-params-as-empty",
        isinstance(reply.get("result", {}).get("data"), list),
        f"reply {reply}",
    )


@case("errors.thread-not-found", requires=["errors.thread-not-found"])
async def thread_not_found(ctx: CaseContext) -> None:
    """Unknown and malformed thread ids."""
    client = await ctx.ready_client()
    turn = await client.call(
        "turn/start", {"threadId": UNKNOWN_THREAD, "input": [{"type": "text", "text": "hi"}]}
    )
    ctx.expect(
        "errors.thread-not-found",
        (error_code(turn), turn.get("error", {}).get("message")),
        (-32600, f"thread not found: {UNKNOWN_THREAD}"),
        "turn/start on an unknown thread",
    )
    for thread_id in ("not-a-uuid", UNKNOWN_THREAD):
        read = await client.call("thread/read", {"threadId": thread_id})
        ctx.expect("errors.thread-not-found", error_code(read), -32600, f"thread/read {thread_id}")


@case(
    "errors.malformed-frames",
    requires=[
        "errors.malformed-frames-survivable",
        "errors.malformed-frames-silent",
        "errors.malformed-frames-answered",
    ],
)
async def malformed_frames(ctx: CaseContext) -> None:
    """A cut-off JSON line, a JSON array, and an object with only an id; then a sentinel request."""
    client = await ctx.ready_client()
    mark = client.mark()
    for frame in (b'{"id": 90, "method": "thread/list", "params": {', b"[1, 2, 3]", b'{"id": 91}'):
        await client.send_raw(frame)
    ctx.check("errors.malformed-frames-survivable", await usable(client, "frames"), "sentinel unanswered")
    replies = [m for m in client.since(mark) if "error" in m]
    ctx.check("errors.malformed-frames-silent", not replies, f"replies {replies}")
    shape = [(error_code(m), m.get("id")) for m in replies[:2]]
    ctx.expect(
        "errors.malformed-frames-answered", shape, [(-32700, None), (-32600, None)], "(code, id) replies"
    )


@case(
    "errors.ignored-client-messages",
    requires=["errors.unmatched-response-ignored", "errors.unknown-notification-ignored"],
)
async def ignored_client_messages(ctx: CaseContext) -> None:
    """A response to a server request that never existed, and an unknown notification."""
    client = await ctx.ready_client()
    mark = client.mark()
    await client.respond(777, {"decision": "accept"})
    survived = await usable(client, "response")
    replies = [m for m in client.since(mark) if "error" in m]
    ctx.check("errors.unmatched-response-ignored", survived and not replies, f"replies {replies}")
    mark = client.mark()
    await client.notify("no/such/notification", {})
    survived = await usable(client, "notification")
    replies = [m for m in client.since(mark) if "error" in m]
    ctx.check("errors.unknown-notification-ignored", survived and not replies, f"replies {replies}")


@case("errors.remote-image-rejected", requires=["errors.remote-image-rejected"])
async def remote_image(ctx: CaseContext) -> None:
    """`turn/start` with an https image URL."""
    client = await ctx.ready_client()
    thread_id = await ctx.start_thread(client)
    image = {"type": "image", "url": "https://example.com/cat.png"}
    reply = await client.call("turn/start", {"threadId": thread_id, "input": [image]})
    ctx.expect(
        "errors.remote-image-rejected",
        (error_code(reply), reply.get("error", {}).get("message")),
        (-32600, "remote image URLs are not supported; use an inline data URL instead"),
        "reply",
    )
