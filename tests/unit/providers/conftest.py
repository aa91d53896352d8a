"""Fixtures: a provider pointed at a fake server, and a typical model request."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import httpx
import pytest

from tether_server.providers.base import ModelRequest, ProviderSettings
from tether_server.providers.responses import ResponsesProvider

API_KEY = "sk-test-secret-key-0123456789"
ProviderFactory = Callable[..., ResponsesProvider]


@pytest.fixture
async def http_client() -> AsyncIterator[httpx.AsyncClient]:
    # trust_env=False keeps loopback traffic away from any proxy set in the environment.
    async with httpx.AsyncClient(trust_env=False, timeout=httpx.Timeout(None, connect=5.0)) as client:
        yield client


@pytest.fixture
def make_provider(http_client: httpx.AsyncClient) -> ProviderFactory:
    """`make_provider(base_url, **setting_overrides)` → a provider sharing the test's client."""

    def make(base_url: str, **overrides: object) -> ResponsesProvider:
        values: dict[str, object] = {
            "name": "fake",
            "base_url": base_url,
            "api_key": API_KEY,
            "http_headers": {"version": "0.1.0"},
            "query_params": {"api-version": "2025-01-01"},
            "stream_idle_timeout_s": 5.0,
        }
        values.update(overrides)
        return ResponsesProvider(ProviderSettings(**values), http_client)  # type: ignore[arg-type]

    return make


@pytest.fixture
def model_request() -> ModelRequest:
    user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    return ModelRequest(
        model="gpt-test",
        instructions="You are a test.",
        input=[user],
        prompt_cache_key="thread-123",
        headers={"session_id": "thread-123"},
    )
