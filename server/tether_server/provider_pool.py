"""One model provider client per configured provider id, made on first use (the app's provider pool)."""

from __future__ import annotations

import functools
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING

from tether_server.auth import Credentials
from tether_server.config import LoadedConfig, resolve_api_key
from tether_server.config.provider import ModelProviderInfo, takes_stored_key
from tether_server.providers.base import ModelProvider, ProviderSettings
from tether_server.providers.deferred import DeferredProvider, responses_loaded
from tether_server.providers.renewing import RenewingProvider

CHATGPT_BASE_URL = "https://chatgpt.com/backend-api"

if TYPE_CHECKING:
    from tether_server.providers.responses import ResponsesProvider


class Providers:
    """One provider client per configured provider id, created on first use.

    A client is replaced when its key changes (a login or logout while the daemon runs); the
    old one may still be streaming a turn, so it is closed only at shutdown.
    """

    def __init__(self, loaded: LoadedConfig, credentials: Credentials) -> None:
        self._loaded = loaded
        self._credentials = credentials
        self._cache: dict[str, ResponsesProvider] = {}
        self._retired: list[ResponsesProvider] = []
        # Who hears each successful response's headers (the rate-limit notifier, once wired).
        self.header_listeners: list[Callable[[Mapping[str, str]], None]] = []
        # Renews the ChatGPT sign-in's tokens after a model 401 (True: renewed); set by the app.
        self.renew_chatgpt: Callable[[], Awaitable[bool]] | None = None

    def __call__(self, provider_id: str) -> ModelProvider:
        if provider_id not in self._cache and not responses_loaded():
            # httpx (and its TLS set-up) loads on the first model request, not at daemon start,
            # and off the event loop; the real client is made (and cached) once it has loaded.
            return DeferredProvider(functools.partial(self, provider_id))
        client = self._client(provider_id)
        if self.renew_chatgpt is None or self._chatgpt(provider_id, self._info(provider_id)) is None:
            return client
        return RenewingProvider(client, functools.partial(self._renewed, provider_id, self.renew_chatgpt))

    async def _renewed(self, provider_id: str, renew: Callable[[], Awaitable[bool]]) -> ModelProvider | None:
        return self._client(provider_id) if await renew() else None

    def _info(self, provider_id: str) -> ModelProviderInfo:
        return self._loaded.config.model_providers[provider_id]

    def _client(self, provider_id: str) -> ResponsesProvider:
        """The cached client of `provider_id`, remade when its key or address changed."""
        info = self._info(provider_id)
        base_url, headers = (info.base_url or "").rstrip("/"), dict(info.http_headers or {})
        chatgpt = self._chatgpt(provider_id, info)
        api_key: str | None
        if chatgpt is not None:
            base_url, api_key, account_id = chatgpt
            if account_id:
                headers["ChatGPT-Account-Id"] = account_id
        else:
            api_key = resolve_api_key(info, os.environ, self._credentials.api_key())
        cached = self._cache.get(provider_id)
        if cached is not None and (cached.settings.api_key, cached.settings.base_url) != (api_key, base_url):
            self._retired.append(self._cache.pop(provider_id))
        if provider_id not in self._cache:
            settings = ProviderSettings(
                name=provider_id,
                base_url=base_url,
                api_key=api_key,
                http_headers=headers,
                query_params=dict(info.query_params or {}),
                stream_idle_timeout_s=info.stream_idle_timeout_ms / 1000,
                request_max_retries=info.request_max_retries,
                stream_max_retries=info.stream_max_retries,
                on_response_headers=self._headers_seen,
            )
            self._cache[provider_id] = _provider_for(info.wire_api, settings)
        return self._cache[provider_id]

    def _chatgpt(self, provider_id: str, info: ModelProviderInfo) -> tuple[str, str, str] | None:
        """(base URL, access token, workspace id) when a ChatGPT sign-in authenticates this provider.

        As in Codex: an OpenAI-authenticated provider with no key of its own (no bearer token, its
        variable unset, no stored API key) talks as the signed-in ChatGPT account; the built-in
        `openai` provider then goes to `{chatgpt_base_url}/codex` instead of the API.
        """
        tokens = self._credentials.chatgpt_tokens()
        if tokens is None or not takes_stored_key(info) or self._credentials.api_key() is not None:
            return None
        if info.experimental_bearer_token or (info.env_key and os.environ.get(info.env_key, "").strip()):
            return None
        base_url = (info.base_url or "").rstrip("/")
        if provider_id == "openai":
            configured = self._loaded.config.chatgpt_base_url
            root = configured if isinstance(configured, str) and configured else CHATGPT_BASE_URL
            base_url = f"{root.rstrip('/')}/codex"
        return base_url, tokens.get("access_token", ""), tokens.get("account_id", "")

    def _headers_seen(self, headers: Mapping[str, str]) -> None:
        for listener in self.header_listeners:
            listener(headers)

    async def aclose(self) -> None:
        for provider in [*self._cache.values(), *self._retired]:
            await provider.aclose()


def _provider_for(wire_api: str, settings: ProviderSettings) -> ResponsesProvider:
    from tether_server.providers.responses import ResponsesProvider

    if wire_api == "chat":
        from tether_server.providers.chat import ChatProvider

        return ChatProvider(settings)
    return ResponsesProvider(settings)
