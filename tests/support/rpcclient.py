"""What every test client shares, whatever the transport: ids, waiting, and reference-schema checks.

Every message received is recorded in `messages` and checked against the reference schema;
violations are collected in `violations` and fail the test at teardown.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from typing import Any

from tests.support import schema

WAIT_S = 15.0


class RpcErrorReply(Exception):
    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.code = error.get("code")
        self.message = str(error.get("message"))
        self.data = error.get("data")


class RpcClient:
    """A JSON-RPC client; subclasses move the bytes (`send_raw`) and say when the peer is gone (`ended`)."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.violations: list[str] = []
        self._pending: dict[Any, tuple[str, asyncio.Future[dict[str, Any]]]] = {}
        self._arrived = asyncio.Event()
        self._ids = itertools.count(1)

    # ---- transport hooks ----------------------------------------------------------------------

    async def send_raw(self, data: bytes) -> None:
        raise NotImplementedError

    def ended(self) -> bool:
        """True once nothing more can arrive."""
        raise NotImplementedError

    # ---- receiving ----------------------------------------------------------------------------

    def _accept(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        if "method" in message and "id" in message:
            self.violations.extend(schema.server_request_errors(message))
        elif "method" in message:
            if "emittedAtMs" not in message:
                self.violations.append(f"{message['method']}: no emittedAtMs")
            self.violations.extend(schema.notification_errors(message))
            self.violations.extend(schema.undeclared_errors(message))
        elif message.get("id") in self._pending:
            method, fut = self._pending.pop(message["id"])
            if "result" in message:
                self.violations.extend(
                    f"{method} result: {e}" for e in schema.response_errors(method, message["result"])
                )
            if not fut.done():
                fut.set_result(message)
        self._arrived.set()

    def _wake(self) -> None:
        self._arrived.set()

    # ---- sending ------------------------------------------------------------------------------

    async def send(self, message: dict[str, Any]) -> None:
        await self.send_raw(json.dumps(message).encode() + b"\n")

    def next_id(self) -> int:
        return int(next(self._ids))

    async def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        request_id: Any = None,
        within_s: float = WAIT_S,
    ) -> dict[str, Any]:
        """Send a request and return the whole reply message (result or error)."""
        rid = self.next_id() if request_id is None else request_id
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[rid] = (method, fut)
        message: dict[str, Any] = {"id": rid, "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)
        async with asyncio.timeout(within_s):
            return await fut

    async def request(self, method: str, params: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
        reply = await self.call(method, {} if params is None else params, **kw)
        if "error" in reply:
            raise RpcErrorReply(reply["error"])
        result: dict[str, Any] = reply["result"]
        return result

    async def initialize(
        self, name: str = "tether_tests", *, experimental: bool = False, opt_out: list[str] | None = None
    ) -> dict[str, Any]:
        caps: dict[str, Any] = {"experimentalApi": experimental}
        if opt_out is not None:
            caps["optOutNotificationMethods"] = opt_out
        result = await self.request(
            "initialize",
            {"clientInfo": {"name": name, "title": None, "version": "1.0"}, "capabilities": caps},
        )
        await self.send({"method": "initialized"})
        return result

    async def respond(self, request_id: Any, result: dict[str, Any]) -> None:
        await self.send({"id": request_id, "result": result})

    # ---- waiting ------------------------------------------------------------------------------

    def mark(self) -> int:
        """Position in the message log; `since(mark)` returns what arrived after it."""
        return len(self.messages)

    def since(self, mark: int) -> list[dict[str, Any]]:
        return self.messages[mark:]

    async def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], *, after: int = 0, within_s: float = WAIT_S
    ) -> dict[str, Any]:
        async with asyncio.timeout(within_s):
            index = after
            while True:
                while index < len(self.messages):
                    if predicate(self.messages[index]):
                        return self.messages[index]
                    index += 1
                if self.ended():
                    raise AssertionError("the server closed the connection while waiting")
                self._arrived.clear()
                await self._arrived.wait()

    async def notification(
        self,
        method: str,
        *,
        after: int = 0,
        within_s: float = WAIT_S,
        where: Callable[[dict[str, Any]], bool] = lambda p: True,
    ) -> dict[str, Any]:
        msg = await self.wait_for(
            lambda m: m.get("method") == method and "id" not in m and where(m.get("params") or {}),
            after=after,
            within_s=within_s,
        )
        return msg

    async def server_request(
        self, method: str, *, after: int = 0, within_s: float = WAIT_S
    ) -> dict[str, Any]:
        return await self.wait_for(
            lambda m: m.get("method") == method and "id" in m, after=after, within_s=within_s
        )

    def check(self) -> None:
        """Fail when anything received broke the reference schema."""
        assert not self.violations, "messages the reference schema rejects:\n" + "\n".join(
            self.violations[:20]
        )


def methods(messages: list[dict[str, Any]]) -> list[str]:
    """The notification/request method sequence (responses shown as `<result>` / `<error>`)."""
    out = []
    for m in messages:
        if "method" in m:
            out.append(m["method"])
        else:
            out.append("<error>" if "error" in m else "<result>")
    return out
