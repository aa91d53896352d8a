"""A ChatGPT-authenticated provider that renews its tokens once when the model answers 401.

Codex renews a ChatGPT sign-in's tokens when a model request is refused as unauthorized (the
refresh-token grant for a managed sign-in; `account/chatgptAuthTokens/refresh` to the app that
supplied `chatgptAuthTokens`) and sends the request once more. Only a refusal before any event
is retried: a stream that already yielded events has been seen by the turn.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable

from tether_server.errors import ProviderError
from tether_server.providers.base import ModelEvent, ModelProvider, ModelRequest

UNAUTHORIZED = 401


class RenewingProvider:
    """`inner`, and on a first 401 the provider `renew` returns (None: the 401 stands)."""

    def __init__(self, inner: ModelProvider, renew: Callable[[], Awaitable[ModelProvider | None]]) -> None:
        self._inner, self._renew = inner, renew
        # The turn asks the provider whether MCP tools go behind `tool_search`: as the inner one.
        self.client_tool_search = bool(getattr(inner, "client_tool_search", False))

    async def stream_batches(self, request: ModelRequest) -> AsyncGenerator[list[ModelEvent]]:
        """The inner provider's batches; after a 401 before any, the renewed provider's.

        Raises:
            ProviderError: as the inner provider, or its 401 when renewing fails.
        """
        batches = self._inner.stream_batches(request)
        started = False
        try:
            async for batch in batches:
                started = True
                yield batch
            return
        except ProviderError as exc:
            if started or exc.http_status != UNAUTHORIZED:
                raise
            renewed = await self._renew()
            if renewed is None:
                raise
        finally:
            await _close(batches)
        retried = renewed.stream_batches(request)
        try:
            async for batch in retried:
                yield batch
        finally:
            await _close(retried)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """The events of `stream_batches`, one at a time.

        Raises:
            ProviderError: as `stream_batches`.
        """
        batches = self.stream_batches(request)
        try:
            async for batch in batches:
                for event in batch:
                    yield event
        finally:
            await batches.aclose()


async def _close(batches: AsyncIterator[list[ModelEvent]]) -> None:
    close = getattr(batches, "aclose", None)
    if close is not None:
        await close()
