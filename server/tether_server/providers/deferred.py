"""A provider whose module is imported off the event loop, for requests made before it has loaded."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import ssl
import threading
from collections.abc import AsyncIterator, Callable
from types import ModuleType
from typing import TypeVar

from tether_server.providers.base import ModelEvent, ModelProvider, ModelRequest

RESPONSES_MODULE = "tether_server.providers.responses"
# Imported by name: the chat package loads httpx, which the daemon does not load at start.
CHAT_MODELS_MODULE = "tether_server.providers.chat.models"
T = TypeVar("T")


# What httpx's first connection loads on demand: names of the libraries' own modules, so a name
# a later release drops is skipped (and then loads, if at all, on the first connection as before).
ON_FIRST_CONNECTION = (
    "httpcore",
    "httpcore._backends.anyio",
    "anyio._core._sockets",
    "anyio._core._streams",
    "anyio._core._tasks",
    "anyio.lowlevel",
    "anyio.streams.stapled",
    "anyio.streams.tls",
)
_loaded = threading.Event()


def load_responses() -> None:
    """Import the Responses provider's module and what its first connection needs (blocking).

    Raises:
        ImportError: the provider's own module failed to import.
    """
    importlib.import_module(RESPONSES_MODULE)
    for name in ON_FIRST_CONNECTION:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # OpenSSL's one-off set-up happens with the first context
    _loaded.set()


def responses_loaded() -> bool:
    """Whether `load_responses` has finished. Being in `sys.modules` is not enough: a module is
    there from the moment another thread begins importing it."""
    return _loaded.is_set()


async def chat_models() -> ModuleType:
    """`providers.chat.models` (a chat server's model list), with httpx imported off the event loop."""
    if not responses_loaded():
        await asyncio.to_thread(load_responses)
    return importlib.import_module(CHAT_MODELS_MODULE)


class DeferredProvider:
    """Stands in for a provider until its module has loaded.

    Importing httpx takes tens of milliseconds, and the warm-up thread may be importing it right
    now. An import on the event loop blocks every connection for that long, because it waits on
    the module's import lock. Here the import runs in a worker thread, and the loop keeps
    sending what the turn has already announced. `make` builds the real provider once the
    import is done.
    """

    # It stands in for the Responses provider only, which runs `tool_search` on the client: a
    # first turn sent before the provider loaded must defer the MCP tools as every later one does.
    client_tool_search = True

    def __init__(self, make: Callable[[], ModelProvider]) -> None:
        self._make = make
        self._provider: ModelProvider | None = None

    async def _loaded(self) -> ModelProvider:
        if self._provider is None:
            await asyncio.to_thread(load_responses)
            self._provider = self._make()
        return self._provider

    async def stream_batches(self, request: ModelRequest) -> AsyncIterator[list[ModelEvent]]:
        provider = await self._loaded()
        async with _closing(provider.stream_batches(request)) as batches:
            async for batch in batches:
                yield batch

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        provider = await self._loaded()
        async with _closing(provider.stream(request)) as events:
            async for event in events:
                yield event


@contextlib.asynccontextmanager
async def _closing(stream: AsyncIterator[T]) -> AsyncIterator[AsyncIterator[T]]:
    """Close the real stream (and so its HTTP response) when this one is closed mid-way."""
    try:
        yield stream
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()
