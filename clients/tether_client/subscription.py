"""A subscription: one consumer's queue of notifications, ended when the connection ends."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import TracebackType

from tether_client.messages import Notification

NotificationFilter = Callable[[Notification], bool]


class Subscription:
    """Every notification received after it was opened (that passes its filter), in order.

    Iterate it with `async for`; the iteration ends when the connection closes. Close it (or use
    it as a context manager) to stop receiving.
    """

    def __init__(self, detach: Callable[[Subscription], None], accept: NotificationFilter | None) -> None:
        self._queue: asyncio.Queue[Notification | None] = asyncio.Queue()
        self._detach = detach
        self._accept = accept
        self._ended = False

    def offer(self, notification: Notification) -> None:
        if not self._ended and (self._accept is None or self._accept(notification)):
            self._queue.put_nowait(notification)

    def end(self) -> None:
        """No more notifications will come (connection gone or subscription closed)."""
        if not self._ended:
            self._ended = True
            self._queue.put_nowait(None)

    def close(self) -> None:
        """Stop receiving; a pending iteration ends."""
        self._detach(self)
        self.end()

    async def next(self) -> Notification | None:
        """The next notification, or None once the subscription has ended."""
        item = await self._queue.get()
        if item is None:
            self._queue.put_nowait(None)  # later calls see the end too
        return item

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Notification:
        item = await self.next()
        if item is None:
            raise StopAsyncIteration
        return item

    def __enter__(self) -> Subscription:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
