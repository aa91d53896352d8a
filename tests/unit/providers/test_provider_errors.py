"""Every failure of the Responses provider becomes a classified, retry-aware ProviderError."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import Any

import pytest

from tether_server.errors import ProviderError
from tether_server.providers.base import Created, ModelEvent, ModelRequest
from tether_server.providers.errors import ProviderHttpError
from tether_server.providers.responses import ResponsesProvider
from tether_testing import (
    FakeResponsesServer,
    disconnect_after,
    failed,
    gated,
    http_error,
    incomplete,
    reply,
    text_reply,
)
from tether_testing.script import ScriptedResponse

API_KEY = "sk-test-secret-key-0123456789"
Factory = Callable[..., ResponsesProvider]


async def stream_until_error(
    provider: ResponsesProvider, req: ModelRequest
) -> tuple[list[ModelEvent], ProviderHttpError]:
    events: list[ModelEvent] = []
    with pytest.raises(ProviderHttpError) as caught:
        async with asyncio.timeout(10):
            async for event in provider.stream(req):
                events.append(event)  # noqa: PERF401 - keep the events seen before the error
    return events, caught.value


async def error_for(script: list[ScriptedResponse], make: Factory, req: ModelRequest) -> ProviderHttpError:
    async with FakeResponsesServer(script) as fake:
        _, error = await stream_until_error(make(fake.base_url), req)
    return error


def api_error(type_: str | None = None, code: str | None = None, message: str = "boom") -> dict[str, Any]:
    return {"error": {"type": type_, "code": code, "message": message}}


HTTP_CASES = [
    pytest.param(http_error(401, api_error(message="bad key")), "unauthorized", False, id="401"),
    pytest.param(
        http_error(429, api_error("usage_limit_reached")), "usageLimitExceeded", False, id="429-usage"
    ),
    pytest.param(
        http_error(429, api_error(code="rate_limit_exceeded")), "rateLimitExceeded", True, id="429-rate"
    ),
    pytest.param(
        http_error(400, api_error("invalid_request_error", "context_length_exceeded")),
        "contextWindowExceeded",
        False,
        id="400-context",
    ),
    pytest.param(http_error(400, api_error("invalid_request_error")), "badRequest", False, id="400-other"),
    pytest.param(
        http_error(404, api_error(code="model_not_found", message="The model `x` does not exist")),
        "modelNotFound",
        False,
        id="404-model",
    ),
    pytest.param(http_error(502), {"httpConnectionFailed": {"httpStatusCode": 502}}, True, id="502"),
    pytest.param(
        http_error(503, api_error(code="server_is_overloaded")), "serverOverloaded", False, id="503"
    ),
]


@pytest.mark.parametrize(("response", "info", "retryable"), HTTP_CASES)
async def test_http_error_status_maps_to_codex_error_info(
    response: ScriptedResponse,
    info: object,
    retryable: bool,
    make_provider: Factory,
    model_request: ModelRequest,
) -> None:
    error = await error_for([response], make_provider, model_request)

    assert error.codex_error_info == info
    assert error.retryable is retryable
    assert error.http_status == response["status"]


async def test_rate_limit_reports_the_servers_retry_after(
    make_provider: Factory, model_request: ModelRequest
) -> None:
    error = await error_for([http_error(429, retry_after=7)], make_provider, model_request)

    assert error.retry_after_s == 7.0


async def test_api_key_echoed_by_the_server_never_appears_in_the_error(
    make_provider: Factory, model_request: ModelRequest
) -> None:
    body = api_error("invalid_request_error", message=f"Incorrect API key provided: {API_KEY}")
    error = await error_for([http_error(401, body)], make_provider, model_request)

    assert API_KEY not in str(error)
    assert API_KEY not in (error.additional_details or "")


async def test_exhausted_script_is_a_server_error_that_says_so(
    make_provider: Factory, model_request: ModelRequest
) -> None:
    error = await error_for([], make_provider, model_request)

    assert error.codex_error_info == {"httpConnectionFailed": {"httpStatusCode": 500}}
    assert "script exhausted" in (error.additional_details or "")


FAILED_CASES = [
    pytest.param("context_length_exceeded", "contextWindowExceeded", False, id="context"),
    pytest.param("insufficient_quota", "usageLimitExceeded", False, id="quota"),
    pytest.param("server_is_overloaded", "serverOverloaded", False, id="overloaded"),
    pytest.param("invalid_prompt", "badRequest", False, id="invalid-prompt"),
    pytest.param("rate_limit_exceeded", "rateLimitExceeded", True, id="rate"),
    pytest.param("mystery", {"responseStreamDisconnected": {"httpStatusCode": None}}, True, id="other"),
]


@pytest.mark.parametrize(("code", "info", "retryable"), FAILED_CASES)
async def test_response_failed_event_is_classified_by_error_code(
    code: str, info: object, retryable: bool, make_provider: Factory, model_request: ModelRequest
) -> None:
    async with FakeResponsesServer([failed(code, "Please try again in 1.5s.")]) as fake:
        events, error = await stream_until_error(make_provider(fake.base_url), model_request)

    assert isinstance(events[0], Created)
    assert error.codex_error_info == info
    assert error.retryable is retryable


async def test_rate_limited_failure_carries_the_delay_named_in_its_message(
    make_provider: Factory, model_request: ModelRequest
) -> None:
    script = [failed("rate_limit_exceeded", "Rate limit reached. Please try again in 250ms.")]
    error = await error_for(script, make_provider, model_request)

    assert error.retry_after_s == pytest.approx(0.25)


async def test_incomplete_response_is_a_retryable_error_naming_the_reason(
    make_provider: Factory, model_request: ModelRequest
) -> None:
    error = await error_for([incomplete("content_filter")], make_provider, model_request)

    assert error.retryable
    assert error.message == "Incomplete response returned, reason: content_filter"


async def test_connection_refused_is_a_retryable_connection_failure(
    make_provider: Factory, model_request: ModelRequest
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # Nothing listens on the port any more.
    _, error = await stream_until_error(make_provider(f"http://127.0.0.1:{port}/v1"), model_request)

    assert error.codex_error_info == {"httpConnectionFailed": {"httpStatusCode": None}}
    assert error.retryable


async def test_silence_longer_than_the_idle_timeout_fails_the_stream(
    make_provider: Factory, model_request: ModelRequest
) -> None:
    async with FakeResponsesServer([reply(gated("never"))]) as fake:
        provider = make_provider(fake.base_url, stream_idle_timeout_s=0.2)
        _, error = await stream_until_error(provider, model_request)

    assert error.message == "idle timeout waiting for SSE"
    assert error.retryable
    assert error.codex_error_info == {"responseStreamDisconnected": {"httpStatusCode": None}}


async def test_connection_dropped_mid_stream_delivers_earlier_events_then_a_retryable_error(
    make_provider: Factory, model_request: ModelRequest
) -> None:
    async with FakeResponsesServer([disconnect_after(events=3)]) as fake:
        events, error = await stream_until_error(make_provider(fake.base_url), model_request)

    assert len(events) == 3
    assert error.retryable
    assert error.codex_error_info == {"responseStreamDisconnected": {"httpStatusCode": None}}


async def test_stream_closed_cleanly_before_completion_is_a_retryable_error(
    make_provider: Factory, model_request: ModelRequest
) -> None:
    truncated = text_reply("hello")
    truncated["steps"] = truncated["steps"][:-1]
    error = await error_for([truncated], make_provider, model_request)

    assert error.message == "stream closed before response.completed"
    assert error.retryable


def test_provider_errors_are_part_of_the_daemon_error_tree() -> None:
    assert issubclass(ProviderHttpError, ProviderError)
