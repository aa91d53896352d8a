"""Routes (method spec + handler) and `Reply`, the one answer to one request.

Every answer a request gets — a handler's result, an error raised before or inside it, a
deferred result, a deferred failure — goes through one `Reply`, which sends at most one frame for
its id and owns the single exception → JSON-RPC error mapping.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from tether_protocol import ErrorCode, jsonrpc
from tether_protocol.common import WireModel
from tether_protocol.spec import AnyMethodSpec, MethodSpec
from tether_protocol.v2.thread import splice_raw_turns
from tether_server import log, metrics
from tether_server.errors import TetherError
from tether_server.rpc.connection import Connection
from tether_server.rpc.context import Deferred, RequestContext
from tether_server.rpc.outgoing import encode

P = TypeVar("P", bound=WireModel)
R = TypeVar("R", bound=WireModel)

_log = log.get("tether.rpc")
INTERNAL_ERROR = "Internal error"


@dataclass(frozen=True)
class Route(Generic[P, R]):
    """A method of the table and the handler that serves it: `P` in, `R` (or `Deferred[R]`) out."""

    spec: MethodSpec[P, R]
    handler: Callable[[RequestContext, P], Awaitable[R | Deferred[R]]]


AnyRoute = Route[Any, Any]


def check_routes(
    methods: Mapping[str, AnyMethodSpec], routes: Mapping[str, AnyRoute], unimplemented: frozenset[str]
) -> None:
    """The handler map and the method table agree both ways.

    Every method of the table has a route or is declared unimplemented (answered -32601); every
    route serves a method of the table, under its own name and with the table's spec.

    Raises:
        ValueError: naming every disagreement.
    """
    problems: list[str] = []
    missing = set(methods) - set(routes) - unimplemented
    if missing:
        problems.append(f"methods without a handler: {sorted(missing)}")
    unknown = set(routes) - set(methods)
    if unknown:
        problems.append(f"handlers for methods not in the table: {sorted(unknown)}")
    both = set(routes) & unimplemented
    if both:
        problems.append(f"methods both handled and declared unimplemented: {sorted(both)}")
    stray = set(unimplemented) - set(methods)
    if stray:
        problems.append(f"unimplemented methods not in the table: {sorted(stray)}")
    for name, route in routes.items():
        if name in methods and route.spec is not methods[name]:
            problems.append(f"handler for {name} is bound to another spec ({route.spec.name})")
    if problems:
        raise ValueError("; ".join(problems))


def error_for(exc: BaseException) -> dict[str, Any]:
    """The JSON-RPC error object for an exception: `TetherError` → its code, anything else → -32603."""
    if isinstance(exc, TetherError):
        error: dict[str, Any] = {"code": int(exc.code), "message": exc.message}
        if exc.data is not None:
            error["data"] = exc.data
        return error
    _log.error("request.failed", exc_info=exc)
    return {"code": int(ErrorCode.INTERNAL_ERROR), "message": INTERNAL_ERROR}


class Reply:
    """The answer to one request id: exactly one frame, or none when the client is gone."""

    def __init__(self, conn: Connection, request_id: jsonrpc.RequestId, method: str = "unknown") -> None:
        self.conn = conn
        self.request_id = request_id
        self.method = method
        self.sent = False
        self.error_code: int | None = None
        self._arrived = time.monotonic()

    def _claim(self, what: str) -> bool:
        if self.sent:
            _log.error("request.answered_twice", request_id=str(self.request_id)[:64], dropped=what)
            return False
        self.sent = True
        outcome = "ok" if self.error_code is None else str(self.error_code)
        metrics.request_done(self.method, outcome, time.monotonic() - self._arrived)
        return True

    def result(self, spec: AnyMethodSpec, value: object) -> bool:
        """Send `value`, which must be an instance of the spec's result model; False if it was not sent.

        A handler that returns anything else is a bug: the client gets -32603, never a shape
        the table does not promise.
        """
        if not isinstance(value, spec.result):
            _log.error("request.bad_result", expected=spec.result.__name__, got=type(value).__name__)
            self.fail(TypeError(f"{spec.name} handler returned {type(value).__name__}"))
            return False
        if not self._claim("result"):
            return False
        wire = value.model_dump(mode="json", by_alias=True)
        splice_raw_turns(value, wire)
        self.conn.send_frame(encode(jsonrpc.response(self.request_id, wire)))
        return True

    def fail(self, exc: BaseException) -> None:
        """Send the error `exc` maps to (a second answer is dropped and logged, never sent)."""
        if self.sent:
            self._claim("error")
            return
        error = error_for(exc)
        self.error_code = error["code"]
        self._claim("error")
        self.conn.send_frame(encode(jsonrpc.error_response(self.request_id, error)))

    def relayed(self, answer: dict[str, Any]) -> None:
        """Send the answer the fleet node owning the request's thread gave (its result or error)."""
        error = answer.get("error")
        if isinstance(error, dict):
            code = error.get("code")
            self.error_code = code if isinstance(code, int) else int(ErrorCode.INTERNAL_ERROR)
            if not self._claim("error"):
                return
            self.conn.send_frame(encode(jsonrpc.error_response(self.request_id, error)))
            return
        result = answer.get("result")
        if not self._claim("result"):
            return
        self.conn.send_frame(
            encode(jsonrpc.response(self.request_id, result if isinstance(result, dict) else {}))
        )

    async def settle(self, spec: AnyMethodSpec, deferred: Deferred[Any]) -> None:
        """Await a deferred answer and send it, or the error its failure maps to."""
        try:
            value = await deferred.answer
        except Exception as exc:  # noqa: BLE001 - the same mapping as for a handler's exception
            self.fail(exc)
        else:
            self.result(spec, value)


def reply_error(
    conn: Connection, request_id: jsonrpc.RequestId | None, code: int, message: str, data: Any = None
) -> None:
    """An error the engine raises before there is a request to answer (bad frames, overload)."""
    error: dict[str, Any] = {"code": int(code), "message": message}
    if data is not None:
        error["data"] = data
    conn.send_frame(encode(jsonrpc.error_response(request_id, error)))
