"""What a handler gets besides its params, and the two ways it can shape its one answer.

A handler answers by returning its result model. Work that must follow the answer on the wire
(a `thread/started` broadcast, a replay of missed events) is registered with `after_response`;
an answer that only exists later (a process's exit) is returned as `Deferred`. Either way the
dispatcher sends the one frame for the request id.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from tether_protocol.common import WireModel
from tether_protocol.jsonrpc import RequestId
from tether_server.rpc.connection import Connection

R = TypeVar("R", bound=WireModel)

AfterResponse = Callable[[], Awaitable[None] | None]
"""Work run once the response is queued: synchronous callables run back to back with nothing
awaited in between (so nothing can slip between the response and them); awaitables in order."""


class Deferred(Generic[R]):
    """An answer that comes later: the dispatcher awaits `answer` outside the request's scope
    lock and sends its result, or maps its exception exactly as it maps a handler's."""

    def __init__(self, answer: Awaitable[R]) -> None:
        self.answer = answer


@dataclass
class RequestContext:
    connection: Connection
    request_id: RequestId
    method: str
    after: list[AfterResponse] = field(default_factory=list)

    def after_response(self, work: AfterResponse) -> None:
        """Run `work` right after the response is sent; not at all when the request fails.

        Its failures are logged, never sent: the request has had its answer.
        """
        self.after.append(work)
