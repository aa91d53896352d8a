"""`item/tool/call`: a dynamic tool's call goes to the client that declared it, else to another subscriber.

The call waits for one answer, first from the owner; when the owner's connection closes, the
thread's other subscribers get the request (same id), and so does a client that subscribes
later. While the owner is connected, nobody else is sent it (and so nobody else can answer it),
however it subscribes. With nobody answering within the timeout, the call fails and the model is
told so.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import ValidationError

from tether_protocol.v2 import mcp as w
from tether_server.core.dynamic_calls import DynamicCaller, DynamicToolUnavailable
from tether_server.processor.subscriptions import Subscriptions
from tether_server.rpc.connection import Connection
from tether_server.rpc.outgoing import PendingRequest, ServerRequests

ITEM_TOOL_CALL = "item/tool/call"


class DynamicToolCalls:
    def __init__(self, requests: ServerRequests, subscriptions: Subscriptions, timeout_s: float) -> None:
        self._requests = requests
        self._subs = subscriptions
        self.timeout_s = timeout_s
        self._pending: dict[int, tuple[str, PendingRequest, Connection]] = {}
        """Request id → (thread id, the request, the owner: the connection that declared the tool)."""

    def caller(self, thread_id: str, owner: Connection) -> DynamicCaller:
        """The core's way to run a tool `owner` declared on `thread_id`."""

        async def call(
            turn_id: str, call_id: str, namespace: str | None, tool: str, arguments: Any
        ) -> tuple[list[dict[str, Any]], bool]:
            params = w.DynamicToolCallParams(
                thread_id=thread_id,
                turn_id=turn_id,
                call_id=call_id,
                namespace=namespace,
                tool=tool,
                arguments=arguments,
            )
            req = self._requests.create(ITEM_TOOL_CALL, params.wire())
            self._pending[req.id] = (thread_id, req, owner)
            if owner.is_open:
                self._requests.send(req, [owner])
            else:
                self._hand_on(thread_id, req, owner)
            try:
                reply = await asyncio.wait_for(asyncio.shield(req.future), self.timeout_s)
            except TimeoutError:
                raise DynamicToolUnavailable(f"no client answered within {self.timeout_s:g}s") from None
            finally:
                self._pending.pop(req.id, None)
                if not req.future.done():
                    req.future.cancel()
            if reply.error is not None:
                message = str(reply.error.get("message", "the client reported an error"))
                return [{"type": "inputText", "text": message}], False
            try:
                result = w.DynamicToolCallResponse.model_validate(reply.result or {})
            except ValidationError:
                return [{"type": "inputText", "text": "the client's answer was not a tool result"}], False
            return [
                item.model_dump(mode="json", by_alias=True) for item in result.content_items
            ], result.success

        return call

    def _hand_on(self, thread_id: str, req: PendingRequest, gone: Connection) -> None:
        others = [c for c in self._subs.subscribers(thread_id) if c is not gone and c.id not in req.sent_to]
        self._requests.send(req, others)

    def resend(self, thread_id: str, conn: Connection) -> None:
        """A client (re)subscribing to the thread gets the calls still waiting for an answer."""
        for call_thread, req, owner in list(self._pending.values()):
            if owner.is_open:
                continue  # the owner answers its own tools while it is there
            if call_thread == thread_id and not req.future.done() and conn.id not in req.sent_to:
                self._requests.send(req, [conn])

    def connection_closed(self, conn: Connection) -> None:
        """Give the calls `conn` was to answer to the thread's other subscribers."""
        for thread_id, req, _owner in list(self._pending.values()):
            if conn.id in req.sent_to and not req.future.done():
                self._hand_on(thread_id, req, conn)
