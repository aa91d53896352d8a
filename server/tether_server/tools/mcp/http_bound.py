"""A bound on one message from a streamable-HTTP MCP server.

The SDK bounds each server-sent event (its `max_sse_event_size`), but reads a JSON response body
whole. The client asks for uncompressed bodies and this response hook stops a JSON body past
`limit` bytes (or a compressed one, whose inflated size the raw count would not bound); the SDK
turns the stream error into that call's error, and the session goes on.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import httpx2

IDENTITY = {"Accept-Encoding": "identity"}


class MessageTooLarge(httpx2.StreamError):
    pass


class _Bounded(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, limit: int, refusal: str | None) -> None:
        self._inner = inner
        self._limit = limit
        self._refusal = refusal

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self._refusal is not None:
            raise MessageTooLarge(self._refusal)
        seen = 0
        async for chunk in self._inner:
            seen += len(chunk)
            if seen > self._limit:
                raise MessageTooLarge(f"the MCP server sent a message larger than {self._limit // 2**20} MiB")
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


def response_hook(limit: int) -> Callable[[httpx2.Response], Awaitable[None]]:
    async def bound(response: httpx2.Response) -> None:
        if not response.headers.get("content-type", "").startswith("application/json"):
            return  # event streams are bounded per event by the SDK
        if not isinstance(response.stream, httpx2.AsyncByteStream):
            return
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        refusal = None if encoding == "identity" else f"the MCP server compressed its answer ({encoding})"
        response.stream = _Bounded(response.stream, limit, refusal)

    return bound
