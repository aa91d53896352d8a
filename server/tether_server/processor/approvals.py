"""Server→client approval requests for a thread: sent to every subscriber, first answer wins.

A request stays pending while nobody can answer it; a client that subscribes later (thread/resume)
gets it re-sent with the same id. Every resolution — an answer, an interrupt, the turn ending —
is announced to the thread's subscribers with `serverRequest/resolved`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tether_server.core import events as ev
from tether_server.core.ports import ApprovalDenied
from tether_server.processor import projection, user_input
from tether_server.processor.subscriptions import Subscriptions
from tether_server.rpc.connection import Connection
from tether_server.rpc.outgoing import PendingRequest, ServerRequests, send_notification
from tether_server.threads.handle import ThreadHandle


class ApprovalBroker:
    """`threads` is the live map of loaded threads (the ThreadManager's), read when a request resolves."""

    def __init__(
        self, requests: ServerRequests, subscriptions: Subscriptions, threads: Mapping[str, ThreadHandle]
    ) -> None:
        self._requests = requests
        self._subs = subscriptions
        self._threads = threads
        self._pending: dict[str, dict[int, PendingRequest]] = {}

    def port(self, thread_id: str) -> ThreadApprovals:
        return ThreadApprovals(self, thread_id)

    def pending_for(self, thread_id: str) -> list[PendingRequest]:
        return list(self._pending.get(thread_id, {}).values())

    def resend(self, thread_id: str, conn: Connection) -> None:
        """Give a (re)subscribing client every request still waiting for an answer."""
        for req in self.pending_for(thread_id):
            if conn.send_frame(req.frame()):
                req.sent_to.add(conn.id)

    async def request(self, thread_id: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
        req = self._requests.create(method, params)
        self._pending.setdefault(thread_id, {})[req.id] = req
        self._requests.send(req, self._subs.subscribers(thread_id))
        try:
            reply = await req.future
        finally:
            self._pending.get(thread_id, {}).pop(req.id, None)
            if not req.future.done():
                req.future.cancel()
            handle = self._threads.get(thread_id)
            if handle is not None:
                await handle.emit(ev.ApprovalResolved(thread_id, req.id))
        if reply.error is not None:
            raise ApprovalDenied(str(reply.error.get("message", "error reply")))
        return reply.result or {}

    async def request_to(
        self, conn: Connection, thread_id: str, method: str, params: dict[str, Any]
    ) -> dict[str, Any]:
        """Ask `conn` alone: not the thread's subscribers, not a client that resumes it later."""
        req = self._requests.create(method, params)
        self._requests.send(req, [conn])
        try:
            reply = await req.future
        finally:
            if not req.future.done():
                req.future.cancel()
            resolved = ev.ApprovalResolved(thread_id, req.id)
            send_notification([conn], *projection.notification(resolved))
        if reply.error is not None:
            raise ApprovalDenied(str(reply.error.get("message", "error reply")))
        return reply.result or {}


class ThreadApprovals:
    """The core's ApprovalPort for one thread."""

    def __init__(self, broker: ApprovalBroker, thread_id: str) -> None:
        self._broker = broker
        self._thread_id = thread_id

    async def request(self, ask: ev.ApprovalAsk) -> ev.ApprovalAnswer:
        method, params = projection.approval_request(ask)
        return projection.approval_answer(await self._broker.request(self._thread_id, method, params))

    async def request_user_input(self, ask: ev.UserInputAsk) -> ev.UserInputAnswer:
        method, params = user_input.request(ask)
        try:
            result = await self._broker.request(self._thread_id, method, params)
        except ApprovalDenied:
            return ev.UserInputAnswer(None)
        return user_input.answer(result)
