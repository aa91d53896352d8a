"""The provider that stands in while httpx loads: the same stream, and nothing left open."""

from __future__ import annotations

import asyncio

import httpx

from tether_server.providers.base import (
    Completed,
    ModelEvent,
    ModelRequest,
    OutputTextDelta,
    ProviderSettings,
)
from tether_server.providers.deferred import DeferredProvider, responses_loaded
from tether_server.providers.responses import ResponsesProvider
from tether_testing import FakeResponsesServer, gated, message, reply, text_reply


def _settings(base_url: str) -> ProviderSettings:
    return ProviderSettings(name="fake", base_url=base_url, api_key="sk-test", stream_idle_timeout_s=5.0)


async def _collect(provider: DeferredProvider, request: ModelRequest) -> list[ModelEvent]:
    async with asyncio.timeout(10):
        return [event async for event in provider.stream(request)]


async def test_a_deferred_provider_streams_what_the_real_one_does(model_request: ModelRequest) -> None:
    async with FakeResponsesServer([text_reply("Hello there", deltas=4)]) as fake:
        made: list[ResponsesProvider] = []

        def make() -> ResponsesProvider:
            made.append(ResponsesProvider(_settings(fake.base_url)))
            return made[-1]

        events = await _collect(DeferredProvider(make), model_request)
        for provider in made:
            await provider.aclose()

    assert responses_loaded()
    assert "".join(e.delta for e in events if isinstance(e, OutputTextDelta)) == "Hello there"
    assert isinstance(events[-1], Completed)


async def test_closing_a_deferred_stream_early_frees_its_connection(model_request: ModelRequest) -> None:
    # One connection in the pool: a response left open would make the next request wait forever.
    script = [reply(message("partial"), gated("hold"), message("never")), text_reply("next")]
    limits = httpx.Limits(max_connections=1)
    async with (
        FakeResponsesServer(script) as fake,
        httpx.AsyncClient(trust_env=False, limits=limits, timeout=httpx.Timeout(None, connect=5.0)) as client,
    ):
        deferred = DeferredProvider(lambda: ResponsesProvider(_settings(fake.base_url), client))
        batches = deferred.stream_batches(model_request)
        assert await anext(batches)
        await fake.wait_for_gate("hold")
        await batches.aclose()  # type: ignore[attr-defined]
        events = await _collect(deferred, model_request)

    assert "".join(e.delta for e in events if isinstance(e, OutputTextDelta)) == "next"


async def test_the_stand_ins_defer_mcp_tools_as_the_responses_provider_does() -> None:
    # A first turn sent while the provider still loads (or under a ChatGPT sign-in) must offer
    # `tool_search` with the MCP tools behind it, as every later turn does: the turn reads this.
    from tether_server.providers.renewing import RenewingProvider

    real = ResponsesProvider(_settings("http://127.0.0.1:9/v1"))

    async def renew() -> None:
        return None

    try:
        for provider in (DeferredProvider(lambda: real), RenewingProvider(real, renew)):
            assert provider.client_tool_search is ResponsesProvider.client_tool_search is True
    finally:
        await real.aclose()
