"""The rpc engine answers each request exactly once: result, mapped error, or deferred answer."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from tests.unit.rpc.engine import Deferred, EchoResult, OtherResult, frames_for, serving

from tether_protocol import jsonrpc
from tether_protocol.server_methods import THREAD_CLOSED
from tether_protocol.v2.notifications import ThreadClosedNotification
from tether_server.errors import NotFound
from tether_server.rpc.connection import Connection
from tether_server.rpc.context import RequestContext
from tether_server.rpc.outgoing import encode, send_notification
from tether_server.rpc.routes import Reply, check_routes
from tether_server.rpc.scopes import ScopeLocks
from tether_server.transports.base import FrameStream


def _closed_note(conn: Connection, thread_id: str) -> None:
    send_notification([conn], THREAD_CLOSED, ThreadClosedNotification(thread_id=thread_id))


async def test_the_result_model_goes_out_by_alias_with_its_nulls() -> None:
    async with serving(lambda ctx, p: _result(EchoResult(text_back=p.text))) as client:
        assert await client.request("test/echo", {"text": "hi"}) == {"textBack": "hi", "note": None}


async def _result(value: Any) -> Any:
    return value


async def test_bad_params_get_a_short_invalid_params_error_and_the_handler_never_runs() -> None:
    ran: list[str] = []

    async def handler(ctx: RequestContext, params: Any) -> EchoResult:
        ran.append(params.text)
        return EchoResult(text_back="x")

    async with serving(handler) as client:
        reply = await client.call("test/echo", {"text": 5})
    assert reply["error"] == {
        "code": -32602,
        "message": "Invalid params: `text`: Input should be a valid string",
    }
    assert ran == []


async def test_a_handler_returning_another_model_gets_one_internal_error() -> None:
    async with serving(lambda ctx, p: _result(OtherResult(other=1))) as client:
        reply = await client.call("test/echo", {"text": "hi"}, request_id=7)
        await client.request("test/second", {"text": "flush"})
        assert reply["error"] == {"code": -32603, "message": "Internal error"}
        assert frames_for(client, 7) == [reply]


async def test_unknown_and_unimplemented_methods_are_method_not_found() -> None:
    async with serving(lambda ctx, p: _result(EchoResult(text_back=""))) as client:
        unknown = await client.call("test/nope", {"text": "x"})
        declared = await client.call("test/unimplemented", {"text": "x"})
    assert unknown["error"] == {"code": -32601, "message": "Method not found: test/nope"}
    assert declared["error"] == {"code": -32601, "message": "Method not found: test/unimplemented"}


async def test_work_after_the_response_follows_it_on_the_wire() -> None:
    async def handler(ctx: RequestContext, params: Any) -> EchoResult:
        ctx.after_response(lambda: _closed_note(ctx.connection, "sync"))
        ctx.after_response(lambda: _async_note(ctx.connection, "async"))
        return EchoResult(text_back=params.text)

    async with serving(handler) as client:
        mark = client.mark()
        await client.request("test/echo", {"text": "hi"})
        await client.notification("thread/closed", after=mark, where=lambda p: p["threadId"] == "async")
        seen = [m.get("params", {}).get("threadId", "<result>") for m in client.since(mark)]
    assert seen == ["<result>", "sync", "async"]


async def _async_note(conn: Connection, thread_id: str) -> None:
    await asyncio.sleep(0)
    _closed_note(conn, thread_id)


async def test_a_request_that_answers_and_then_fails_still_gets_exactly_one_frame() -> None:
    failed = asyncio.Event()

    def explode() -> None:
        failed.set()
        raise RuntimeError("after the answer")

    async def handler(ctx: RequestContext, params: Any) -> EchoResult:
        ctx.after_response(explode)
        ctx.after_response(lambda: _closed_note(ctx.connection, "still runs"))
        return EchoResult(text_back=params.text)

    async with serving(handler) as client:
        mark = client.mark()
        reply = await client.call("test/echo", {"text": "hi"}, request_id="once")
        await failed.wait()
        # A round trip after the failure: anything it would have sent is on the wire by now.
        await client.request("test/second", {"text": "flush"})
        assert frames_for(client, "once") == [reply]
        assert reply["result"] == {"textBack": "hi", "note": None}
        assert any(m.get("params", {}).get("threadId") == "still runs" for m in client.since(mark))


async def test_after_response_work_does_not_run_when_the_handler_fails() -> None:
    ran: list[str] = []

    async def handler(ctx: RequestContext, params: Any) -> EchoResult:
        ctx.after_response(lambda: ran.append("after"))
        raise NotFound(f"thread not found: {params.thread_id}")

    async with serving(handler) as client:
        reply = await client.call("test/echo", {"text": "hi"})
        await client.request("test/second", {"text": "flush"})
    assert reply["error"] == {"code": -32600, "message": "thread not found: t1"}
    assert ran == []


async def test_a_deferred_answer_releases_the_scope_and_arrives_once_ready() -> None:
    answer: asyncio.Future[EchoResult] = asyncio.get_running_loop().create_future()

    async def handler(ctx: RequestContext, params: Any) -> Deferred[EchoResult]:
        return Deferred(answer)

    async with serving(handler) as client:
        first = asyncio.create_task(client.call("test/echo", {"text": "slow"}, request_id="d"))
        # Same scope (thread t1): it is served while the deferred answer is still pending.
        assert await client.request("test/second", {"text": "fast"}) == {"textBack": "fast", "note": None}
        assert not first.done()
        answer.set_result(EchoResult(text_back="done"))
        reply = await first
        await client.request("test/second", {"text": "flush"})
        assert reply["result"] == {"textBack": "done", "note": None}
        assert frames_for(client, "d") == [reply]


@pytest.mark.parametrize(
    ("failure", "error"),
    [
        (
            NotFound('no active command/exec for process id "p"'),
            (-32600, 'no active command/exec for process id "p"'),
        ),
        (RuntimeError("boom"), (-32603, "Internal error")),
        (OtherResult(), (-32603, "Internal error")),
    ],
)
async def test_a_deferred_failure_maps_like_a_handler_failure(
    failure: object, error: tuple[int, str]
) -> None:
    answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    async def handler(ctx: RequestContext, params: Any) -> Deferred[EchoResult]:
        return Deferred(answer)

    async with serving(handler) as client:
        pending = asyncio.create_task(client.call("test/echo", {"text": "x"}, request_id="f"))
        await client.request("test/second", {"text": "in between"})
        if isinstance(failure, BaseException):
            answer.set_exception(failure)
        else:
            answer.set_result(failure)
        reply = await pending
        await client.request("test/second", {"text": "flush"})
        assert reply["error"] == {"code": error[0], "message": error[1]}
        assert frames_for(client, "f") == [reply]


class _Sink(FrameStream):
    """A FrameStream that keeps what is written (for `Reply` on its own)."""

    label = "sink"

    def __init__(self) -> None:
        self.sent: list[bytes] = []

    async def frames(self) -> Any:
        await asyncio.Event().wait()
        yield b""

    async def send(self, frame: bytes) -> None:
        self.sent.append(frame)

    async def close(self, reason: str = "") -> None:
        return None


async def test_reply_refuses_a_second_frame_for_its_id() -> None:
    from tests.unit.rpc.engine import ECHO

    sink = _Sink()
    stream: FrameStream = sink
    conn = Connection(stream)
    writer = asyncio.create_task(conn.write_loop())
    reply = Reply(conn, 3)
    assert reply.result(ECHO, EchoResult(text_back="a"))
    reply.fail(RuntimeError("later"))
    assert not reply.result(ECHO, EchoResult(text_back="b"))
    conn.shutdown("done")
    await writer
    assert sink.sent == [encode(jsonrpc.response(3, {"textBack": "a", "note": None}))]


async def test_scope_locks_serve_one_key_in_arrival_order() -> None:
    locks = ScopeLocks()
    order: list[str] = []
    release, other_key_served = asyncio.Event(), asyncio.Event()

    async def hold(name: str, key: str) -> None:
        async with locks.hold(key):
            order.append(name)
            if name == "a":
                await release.wait()
            if name == "c":
                other_key_served.set()

    tasks = [asyncio.create_task(hold(n, k)) for n, k in (("a", "t"), ("b", "t"), ("c", "u"))]
    await other_key_served.wait()
    assert order == ["a", "c"]
    release.set()
    await asyncio.gather(*tasks)
    assert order == ["a", "c", "b"]


def test_the_handler_map_is_checked_against_the_table_both_ways() -> None:
    from tests.unit.rpc.engine import ECHO, LATER, SECOND, TABLE, echo, routes

    served = routes(echo)
    check_routes(TABLE, served, frozenset({LATER.name}))
    with pytest.raises(ValueError, match=r"methods without a handler: \['test/unimplemented'\]"):
        check_routes(TABLE, served, frozenset())
    with pytest.raises(ValueError, match=r"handlers for methods not in the table: \['test/second'\]"):
        check_routes({ECHO.name: ECHO, LATER.name: LATER}, served, frozenset({LATER.name}))
    with pytest.raises(ValueError, match="both handled and declared unimplemented"):
        check_routes(TABLE, served, frozenset({LATER.name, SECOND.name}))
    swapped = {ECHO.name: served[SECOND.name], SECOND.name: served[ECHO.name]}
    with pytest.raises(ValueError, match="handler for test/echo is bound to another spec"):
        check_routes(TABLE, swapped, frozenset({LATER.name}))
