"""A blocking wrapper: the async Client run on a private event loop in a background thread."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from tether_client.approvals import ApprovalHandler
from tether_client.client import Client, Params
from tether_client.messages import Notification
from tether_client.turns import TurnInput
from tether_protocol.common import WireModel
from tether_protocol.v2 import thread_lifecycle as tl

T = TypeVar("T")


class SyncTurn:
    """The outcome of `SyncClient.run_turn`: the notifications, the final Turn and message."""

    def __init__(self, notifications: list[Notification], status: str, final_message: str | None) -> None:
        self.notifications = notifications
        self.status = status
        self.final_message = final_message


class SyncClient:
    """`Client` for code without an event loop; every call blocks until its answer.

    Example:
        with SyncClient.spawn() as client:
            thread = client.start_thread(cwd="/repo")
            print(client.run_turn(thread.thread.id, "hello").final_message)
    """

    def __init__(self, factory: Coroutine[Any, Any, Client]) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="tether-client", daemon=True)
        self._thread.start()
        try:
            self._client = self._call(factory)
        except BaseException:
            self._stop_loop()
            raise

    @classmethod
    def spawn(
        cls,
        command: Sequence[str] | None = None,
        *,
        cwd: str | Path | None = None,
        env: dict[str, str] | None = None,
        approval_handler: ApprovalHandler | None = None,
    ) -> SyncClient:
        """Start `tether app-server` (or `command`) as a child; see `Client.spawn`."""
        return cls(Client.spawn(command, cwd=cwd, env=env, approval_handler=approval_handler))

    @classmethod
    def connect(cls, address: str | Path, *, token: str | None = None) -> SyncClient:
        """Connect to a running daemon; see `Client.connect`."""
        return cls(Client.connect(address, token=token))

    def _call(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def request(self, method: str, params: Params = None) -> WireModel:
        """`Client.request`, blocking."""
        return self._call(self._client.request(method, params))

    def request_raw(self, method: str, params: Params = None) -> dict[str, Any]:
        """`Client.request_raw`, blocking."""
        return self._call(self._client.request_raw(method, params))

    def start_thread(self, **fields: Any) -> tl.ThreadStartResponse:
        """`Client.start_thread`, blocking."""
        return self._call(self._client.start_thread(**fields))

    def run_turn(self, thread_id: str, input: TurnInput, **fields: Any) -> SyncTurn:
        """Run one turn to its end and return everything it sent."""
        return self._call(self._run_turn(thread_id, input, fields))

    async def _run_turn(self, thread_id: str, input: TurnInput, fields: dict[str, Any]) -> SyncTurn:
        stream = self._client.run_turn(thread_id, input, **fields)
        seen = [n async for n in stream]
        return SyncTurn(seen, stream.status or "failed", stream.final_message)

    def close(self) -> None:
        """Close the connection and stop the background loop."""
        try:
            self._call(self._client.close())
        finally:
            self._stop_loop()

    def _stop_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()

    def __enter__(self) -> SyncClient:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
