"""Context windows chat servers report in their model list, learned in the background.

A local server knows how long a context it was started with (vLLM's ``--max-model-len``,
llama.cpp's ``-c``); compaction should work to that, not to a hosted model's window. The list is
read once per provider and model, in a task of its own: a turn never waits for it, and until it
answers (or when it fails, or does not say) the configured default stands.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from tether_server import log
from tether_server.config import LoadedConfig, resolve_api_key
from tether_server.errors import ConfigError, ProviderError
from tether_server.providers.deferred import chat_models

_log = log.get(__name__)


@dataclass(frozen=True)
class ChatServer:
    """Where a chat provider's model list is read, and with what credentials."""

    base_url: str
    api_key: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


def chat_servers(
    loaded: LoadedConfig, stored_key: Callable[[], str | None]
) -> Callable[[str], ChatServer | None]:
    """Provider id → its chat server (None for a Responses provider: its window is configured)."""

    def server_for(provider_id: str) -> ChatServer | None:
        info = loaded.config.model_providers.get(provider_id)
        if info is None or info.wire_api != "chat" or not info.base_url:
            return None
        try:
            key = resolve_api_key(info, os.environ, stored_key())
        except ConfigError:
            return None  # the turn itself says which key is missing
        return ChatServer(info.base_url, key, dict(info.http_headers or {}))

    return server_for


class ServedWindows:
    """Provider id and model → the window its server reports, or None (not known, or not yet)."""

    def __init__(self, server_for: Callable[[str], ChatServer | None]) -> None:
        self._server_for = server_for
        self._known: dict[tuple[str, str], int | None] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def __call__(self, provider_id: str, model: str) -> int | None:
        key = (provider_id, model)
        if key not in self._known:
            self._start(key)
        return self._known.get(key)

    def _start(self, key: tuple[str, str]) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # asked outside the loop: the next ask, inside it, starts the read
        self._known[key] = None
        server = self._server_for(key[0])
        if server is None:
            return
        task = loop.create_task(self._learn(key, server))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _learn(self, key: tuple[str, str], server: ChatServer) -> None:
        try:
            models = await chat_models()
            window = await models.served_context_window(
                server.base_url, key[1], api_key=server.api_key, headers=server.headers
            )
        except (ProviderError, OSError) as exc:  # a server that cannot say leaves the default window
            _log.info("chat.context_window_unknown", provider=key[0], model=key[1], reason=str(exc))
            return
        if isinstance(window, int):
            self._known[key] = window

    async def settled(self) -> None:
        """Wait until the reads started so far have answered or failed."""
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
