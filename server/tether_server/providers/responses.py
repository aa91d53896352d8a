"""`ModelProvider` over the OpenAI Responses API: HTTPS POST answered by an SSE stream."""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncGenerator, AsyncIterator
from types import TracebackType

import httpx
import orjson

from tether_server import log
from tether_server.providers import errors
from tether_server.providers.base import Completed, ModelEvent, ModelRequest, ProviderSettings
from tether_server.providers.events import ResponseStreamParser
from tether_server.providers.sse import SseDecoder

_log = log.get(__name__)
_DRAIN_TIMEOUT_S = 1.0
_CONNECT_TIMEOUT_S = 30.0


class ResponsesProvider:
    """Streams responses from ``{base_url}/responses``. One attempt per `stream` call.

    Args:
        settings: resolved provider settings.
        client: an `httpx.AsyncClient` to share; when None the provider owns one and
            `aclose` closes it.
    """

    client_tool_search = True
    """The API runs Codex's client-executed `tool_search`, so MCP tools may be deferred behind it."""

    def __init__(self, settings: ProviderSettings, client: httpx.AsyncClient | None = None) -> None:
        self.settings = settings
        self._owns_client = client is None
        self._client = client or httpx.AsyncClient(
            timeout=httpx.Timeout(None, connect=_CONNECT_TIMEOUT_S), verify=_tls_for(settings.base_url)
        )

    async def aclose(self) -> None:
        """Close the HTTP client if this provider created it."""
        if self._owns_client:
            await self._client.aclose()

    async def __aenter__(self) -> ResponsesProvider:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    @property
    def url(self) -> str:
        """The endpoint every request is posted to."""
        return self.settings.base_url.rstrip("/") + "/responses"

    def request_headers(self, request: ModelRequest) -> dict[str, str]:
        """Headers of one request: provider headers, per-request headers, then auth."""
        headers = {"Accept": "text/event-stream", "Content-Type": "application/json"}
        headers.update(self.settings.http_headers)
        headers.update(request.headers)
        if self.settings.api_key:
            headers["Authorization"] = f"Bearer {self.settings.api_key}"
        return headers

    def encode_body(self, request: ModelRequest) -> bytes:
        """The bytes posted to `url` for `request`."""
        return orjson.dumps(request.body())

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """POST `request` and yield its events until `Completed`.

        Raises:
            ProviderHttpError: HTTP error status, transport failure, idle timeout,
                `response.failed`, or the stream ending before `response.completed`.
        """
        batches = self.stream_batches(request)
        try:
            async for batch in batches:
                for event in batch:
                    yield event
        finally:
            await batches.aclose()

    async def stream_batches(self, request: ModelRequest) -> AsyncGenerator[list[ModelEvent]]:
        """POST `request` and yield its events, a chunk's worth at a time, until `Completed`.

        Raises:
            ProviderHttpError: as `stream`.
        """
        _log.debug("responses_request", provider=self.settings.name, model=request.model)
        http_request = self._client.build_request(
            "POST",
            self.url,
            content=self.encode_body(request),
            headers=self.request_headers(request),
            params=dict(self.settings.query_params),
        )
        try:
            async with asyncio.timeout(self.settings.stream_idle_timeout_s):
                response = await self._client.send(http_request, stream=True)
        except TimeoutError:
            raise errors.connection_failed("timed out waiting for the response headers") from None
        except httpx.TransportError as exc:
            raise errors.connection_failed(self._describe(exc)) from None
        try:
            if response.status_code >= 400:
                raise await self._status_error(response)
            if self.settings.on_response_headers is not None:
                self.settings.on_response_headers(response.headers)
            async for batch in self._events(response):
                yield batch
        finally:
            await response.aclose()

    async def _status_error(self, response: httpx.Response) -> errors.ProviderHttpError:
        try:
            body = await response.aread()
        except httpx.TransportError:
            body = b""
        error = errors.from_http_status(
            response.status_code,
            body,
            retry_after_s=errors.parse_retry_after(response.headers),
            secret=self.settings.api_key,
        )
        _log.info("responses_http_error", provider=self.settings.name, status=response.status_code)
        return error

    async def _events(self, response: httpx.Response) -> AsyncIterator[list[ModelEvent]]:
        decoder = SseDecoder()
        parser = ResponseStreamParser()
        chunks = self._chunks(response)
        async for chunk in chunks:
            batch: list[ModelEvent] = []
            for data in decoder.feed_data(chunk):
                event = parser.handle_data(data)
                if event is None:
                    continue
                batch.append(event)
                if isinstance(event, Completed):
                    await _drain(chunks)
                    yield batch
                    return
            if batch:
                yield batch
        raise parser.end_error()

    async def _chunks(self, response: httpx.Response) -> AsyncIterator[bytes]:
        """Body chunks; each wait is bounded by the idle timeout."""
        chunks = response.aiter_bytes()
        idle = self.settings.stream_idle_timeout_s
        while True:
            try:
                async with asyncio.timeout(idle):
                    chunk = await anext(chunks)
            except StopAsyncIteration:
                return
            except TimeoutError:
                raise errors.stream_disconnected(errors.IDLE_TIMEOUT_MESSAGE) from None
            except httpx.TransportError as exc:
                raise errors.stream_disconnected(
                    f"error reading the response stream: {self._describe(exc)}"
                ) from None
            yield chunk

    def _describe(self, exc: Exception) -> str:
        return errors.redact(str(exc) or type(exc).__name__, self.settings.api_key)


def _tls_for(base_url: str) -> ssl.SSLContext | bool:
    """The TLS set-up of a provider's client: the default trust store for https, none for http.

    Loading the CA bundle costs tens of milliseconds of CPU on the first turn, and a provider
    reached over plain HTTP (a local model server) never makes a TLS handshake with its origin
    (redirects are not followed). Its context trusts no certificate at all, so a handshake would
    fail closed, never go unverified.
    """
    if base_url[:7].lower() == "http://":
        return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    return True


async def _drain(chunks: AsyncIterator[bytes]) -> None:
    """Read the body to its end so the connection goes back to the pool (no new TCP per request)."""
    with contextlib.suppress(TimeoutError, httpx.HTTPError, errors.ProviderHttpError):
        async with asyncio.timeout(_DRAIN_TIMEOUT_S):
            async for _ in chunks:
                pass
