"""Checks of the selected model provider: its key, its endpoint, and (when asked) one small request."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path

import httpx

from tether_server.auth import CredentialStoreError, open_store
from tether_server.config import Config, ModelProviderInfo, resolve_api_key
from tether_server.config.provider import takes_stored_key
from tether_server.doctor import catalog
from tether_server.doctor.report import Check, ok, skip
from tether_server.errors import ConfigError, ProviderError
from tether_server.providers.base import Completed, ModelRequest, ProviderSettings
from tether_server.providers.chat import ChatProvider
from tether_server.providers.responses import ResponsesProvider

ENDPOINT_TIMEOUT_S = 5.0
PROBE_TIMEOUT_S = 60.0
# The smallest output cap the Responses API accepts; the answer itself is one word.
PROBE_MAX_OUTPUT_TOKENS = 16


def stored_key(home: Path, config: Config) -> str | None:
    """The key `tether login` stored for this home, or None (an unreadable store counts as none)."""
    try:
        auth = open_store(home, config.cli_auth_credentials_store or "file").load()
    except CredentialStoreError:
        return None
    return auth.api_key if auth else None


def find_key(info: ModelProviderInfo, home: Path, config: Config, environ: Mapping[str, str]) -> str | None:
    """The key the daemon would send (None: the provider needs none).

    Raises:
        ConfigError: the provider needs a key and none is found.
    """
    return resolve_api_key(info, environ, stored_key(home, config))


def check_key(config: Config, home: Path, environ: Mapping[str, str] = os.environ) -> Check:
    info, name = config.provider, config.provider_name
    try:
        key = find_key(info, home, config, environ)
    except ConfigError:
        stored = " and no key is stored" if takes_stored_key(info) else ""
        summary = f"{name}: {info.env_key} is not set{stored}"
        return catalog.KEY_MISSING.found(summary, {"provider": name}, var=info.env_key)
    if key is None:
        return ok("provider-key", f"{name} needs no API key")
    source = (
        "the environment" if info.env_key and environ.get(info.env_key, "").strip() else "stored credentials"
    )
    if info.experimental_bearer_token:
        source = "config (experimental_bearer_token)"
    return ok("provider-key", f"{name} has an API key from {source}", {"provider": name, "source": source})


async def check_endpoint(config: Config) -> Check:
    base = (config.provider.base_url or "").rstrip("/")
    url = f"{base}/models"
    started = time.monotonic()
    try:
        async with httpx.AsyncClient(timeout=ENDPOINT_TIMEOUT_S) as client:
            response = await client.get(url)
    except httpx.HTTPError as exc:
        summary = f"{base} does not answer: {type(exc).__name__}: {exc}"
        return catalog.ENDPOINT_UNREACHABLE.found(summary, {"url": base}, url=base)
    elapsed = int((time.monotonic() - started) * 1000)
    details = {"url": base, "status": response.status_code, "ms": elapsed}
    return ok("provider-endpoint", f"{base} answers (HTTP {response.status_code} in {elapsed} ms)", details)


class _ProbeRequest(ModelRequest):
    def body(self) -> dict[str, object]:
        body = super().body()
        body["max_output_tokens"] = PROBE_MAX_OUTPUT_TOKENS
        return body


async def check_model(
    config: Config, home: Path, model: str | None, environ: Mapping[str, str] = os.environ
) -> Check:
    if model is None:
        return skip("provider-model", "not tried (add --probe-model to send one small request)")
    info, slug = config.provider, model or config.model
    try:
        key = find_key(info, home, config, environ)
    except ConfigError:
        return skip("provider-model", "not tried: no API key (see provider-key)")
    settings = ProviderSettings(
        name=config.model_provider,
        base_url=(info.base_url or "").rstrip("/"),
        api_key=key,
        http_headers=dict(info.http_headers or {}),
        query_params=dict(info.query_params or {}),
        stream_idle_timeout_s=PROBE_TIMEOUT_S,
    )
    request = _ProbeRequest(model=slug, instructions="", input=[_user("Reply with the word OK.")])
    started = time.monotonic()
    try:
        kind = ChatProvider if info.wire_api == "chat" else ResponsesProvider
        async with kind(settings) as provider:
            async for event in provider.stream(request):
                if isinstance(event, Completed):
                    break
    except ProviderError as exc:
        return _model_failure(exc, slug, info)
    elapsed = int((time.monotonic() - started) * 1000)
    return ok(
        "provider-model", f"{slug} answered a test request in {elapsed} ms", {"model": slug, "ms": elapsed}
    )


def _model_failure(exc: ProviderError, slug: str, info: ModelProviderInfo) -> Check:
    details = {"model": slug, "status": exc.http_status, "kind": exc.codex_error_info}
    summary = f"{slug}: {exc.message}"
    if exc.http_status in (401, 403):
        return catalog.MODEL_KEY_REFUSED.found(summary, details, var=info.env_key or "the provider's key")
    if exc.codex_error_info == "modelNotFound":
        return catalog.MODEL_UNKNOWN.found(summary, details)
    return catalog.MODEL_FAILED.found(summary, details)


def _user(text: str) -> dict[str, object]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
