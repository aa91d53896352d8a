"""A small method table and a dispatcher serving it in process, for the rpc engine's tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from tests.support.memory import MemoryClient

from tether_protocol.common import WireModel
from tether_protocol.spec import AnyMethodSpec, MethodSpec
from tether_server.rpc.context import Deferred, RequestContext
from tether_server.rpc.dispatcher import Dispatcher
from tether_server.rpc.routes import AnyRoute, Route


class EchoParams(WireModel):
    thread_id: str = "t1"
    text: str


class EchoResult(WireModel):
    text_back: str
    note: str | None = None


class OtherResult(WireModel):
    other: int = 0


ECHO = MethodSpec("test/echo", EchoParams, EchoResult, scope="thread_id")
SECOND = MethodSpec("test/second", EchoParams, EchoResult, scope="thread_id")
LATER = MethodSpec("test/unimplemented", EchoParams, EchoResult)
TABLE: dict[str, AnyMethodSpec] = {s.name: s for s in (ECHO, SECOND, LATER)}

Handler = Callable[[RequestContext, EchoParams], Awaitable[Any]]


async def echo(ctx: RequestContext, params: EchoParams) -> EchoResult:
    return EchoResult(text_back=params.text)


def routes(first: Handler, second: Handler = echo) -> dict[str, AnyRoute]:
    a: Route[EchoParams, EchoResult] = Route(ECHO, first)
    b: Route[EchoParams, EchoResult] = Route(SECOND, second)
    return {"test/echo": a, "test/second": b}


@asynccontextmanager
async def serving(first: Handler, second: Handler = echo) -> AsyncIterator[MemoryClient]:
    """A connected, initialized client of a dispatcher whose `test/echo` runs `first`."""
    dispatcher = Dispatcher(TABLE, routes(first, second), unimplemented=frozenset({LATER.name}))
    client = MemoryClient(dispatcher)
    client.connection.initialized = True
    try:
        yield client
    finally:
        await client.close()
    client.check()


def frames_for(client: MemoryClient, request_id: object) -> list[dict[str, Any]]:
    return [m for m in client.messages if "method" not in m and m.get("id") == request_id]


__all__ = ["Deferred", "EchoResult", "OtherResult", "frames_for", "serving"]
