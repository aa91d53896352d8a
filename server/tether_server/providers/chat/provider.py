"""`ModelProvider` over the Chat Completions API (``wire_api = "chat"``): local and proxy servers.

The HTTP side is the Responses provider's (headers, timeouts, status errors, retry hints); what
differs is the endpoint, the body (`request.chat_body`) and how the stream reads
(`stream.ChatStreamParser`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import orjson

from tether_server.providers import errors
from tether_server.providers.base import ModelEvent, ModelRequest
from tether_server.providers.chat.request import chat_body
from tether_server.providers.chat.stream import ChatStreamParser, is_context_overflow
from tether_server.providers.responses import ResponsesProvider, _drain
from tether_server.providers.sse import SseDecoder


class ChatProvider(ResponsesProvider):
    """Streams chat completions from ``{base_url}/chat/completions``. One attempt per `stream` call."""

    client_tool_search = False
    """Chat Completions has no client-run search tool: MCP tools are offered as functions."""

    @property
    def url(self) -> str:
        return self.settings.base_url.rstrip("/") + "/chat/completions"

    def encode_body(self, request: ModelRequest) -> bytes:
        return orjson.dumps(chat_body(request))

    async def _status_error(self, response: httpx.Response) -> errors.ProviderHttpError:
        error = await super()._status_error(response)
        # Local servers word a prompt too long for the context their own way (llama.cpp:
        # exceed_context_size_error; vLLM: "maximum context length"); it is not worth retrying.
        if error.http_status == 400 and is_context_overflow(error.additional_details or ""):
            return errors.ProviderHttpError(
                errors.CONTEXT_WINDOW_MESSAGE,
                codex_error_info="contextWindowExceeded",
                http_status=400,
                additional_details=error.additional_details,
            )
        return error

    async def _events(self, response: httpx.Response) -> AsyncIterator[list[ModelEvent]]:
        decoder = SseDecoder()
        parser = ChatStreamParser()
        chunks = self._chunks(response)
        async for chunk in chunks:
            batch: list[ModelEvent] = []
            for data in decoder.feed_data(chunk):
                batch.extend(parser.handle_data(data))
                if parser.completed:
                    await _drain(chunks)
                    yield batch
                    return
            if batch:
                yield batch
        yield parser.end()

    def _describe(self, exc: Exception) -> str:
        detail = super()._describe(exc)
        if isinstance(exc, httpx.ConnectError):
            return f"{detail}: no model server answers at {self.settings.base_url} (is it running?)"
        return detail
