"""Map HTTP statuses, transport failures and `response.failed` codes to `ProviderError`s.

The `codex_error_info` values are the wire `CodexErrorInfo` of protocol.md §7.2; which errors
are retryable follows core.md §1.3/§1.8.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from tether_server.errors import ProviderError

CONTEXT_WINDOW_MESSAGE = (
    "Codex ran out of room in the model's context window. "
    "Start a new thread or clear earlier history before retrying."
)
QUOTA_MESSAGE = "Quota exceeded. Check your plan and billing details."
USAGE_LIMIT_MESSAGE = "You've hit your usage limit. Try again later."
OVERLOADED_MESSAGE = "The model provider is overloaded. Please try again later."
SERVER_ERROR_MESSAGE = "We're currently experiencing high demand, which may cause temporary errors."
IDLE_TIMEOUT_MESSAGE = "idle timeout waiting for SSE"
EARLY_CLOSE_MESSAGE = "stream closed before response.completed"

_BODY_EXCERPT = 1000
_TRY_AGAIN = re.compile(r"try again in\s*(\d+(?:\.\d+)?)\s*(ms|s)\b", re.IGNORECASE)


class ProviderHttpError(ProviderError):
    """A `ProviderError` raised by the Responses API client (HTTP status, transport, stream)."""


def connection_failed(detail: str) -> ProviderHttpError:
    """The request never got a status line (refused, reset, DNS, connect timeout)."""
    return ProviderHttpError(
        f"error sending request to the model provider: {detail}",
        codex_error_info={"httpConnectionFailed": {"httpStatusCode": None}},
        retryable=True,
    )


def stream_disconnected(message: str) -> ProviderHttpError:
    """The SSE stream broke, stalled or ended before `response.completed`."""
    return ProviderHttpError(
        message,
        codex_error_info={"responseStreamDisconnected": {"httpStatusCode": None}},
        retryable=True,
    )


def _error_object(body: bytes) -> dict[str, Any]:
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError:
        return {}
    error = parsed.get("error") if isinstance(parsed, dict) else None
    return error if isinstance(error, dict) else {}


def from_http_status(
    status: int, body: bytes, *, retry_after_s: float | None = None, secret: str | None = None
) -> ProviderHttpError:
    """Classify a non-2xx answer to the POST. `secret` is scrubbed from the message."""
    error = _error_object(body)
    text = redact(body[:_BODY_EXCERPT].decode("utf-8", errors="replace"), secret)
    message, info, retryable = _classify_status(
        status, error, redact(str(error.get("message") or ""), secret), text
    )
    return ProviderHttpError(
        message,
        codex_error_info=info,
        retryable=retryable,
        http_status=status,
        retry_after_s=retry_after_s,
        additional_details=text or None,
    )


def _classify_status(status: int, error: dict[str, Any], message: str, text: str) -> tuple[str, Any, bool]:
    kind, code = str(error.get("type") or ""), str(error.get("code") or "")
    detail = message or text
    if status == 401:
        return f"unauthorized: {detail}", "unauthorized", False
    if status == 429:
        if kind in ("usage_limit_reached", "usage_not_included") or code == "insufficient_quota":
            return USAGE_LIMIT_MESSAGE, "usageLimitExceeded", False
        return f"rate limited (status 429): {detail}", "rateLimitExceeded", True
    if status == 400:
        if code == "context_length_exceeded" or "context_length_exceeded" in text:
            return CONTEXT_WINDOW_MESSAGE, "contextWindowExceeded", False
        return detail or "bad request", "badRequest", False
    if status == 404 and (code == "model_not_found" or "model" in text.lower()):
        return f"model not found: {detail}", "modelNotFound", False
    if status == 503 and code in ("server_is_overloaded", "slow_down"):
        return OVERLOADED_MESSAGE, "serverOverloaded", False
    if status >= 500:
        return SERVER_ERROR_MESSAGE, {"httpConnectionFailed": {"httpStatusCode": status}}, True
    return f"unexpected status {status}: {text}", "other", True


def from_response_failed(error: dict[str, Any]) -> ProviderHttpError:
    """Classify the `error` object of a `response.failed` event."""
    code = str(error.get("code") or "")
    message = str(error.get("message") or "")
    if code == "context_length_exceeded":
        return ProviderHttpError(CONTEXT_WINDOW_MESSAGE, codex_error_info="contextWindowExceeded")
    if code in ("insufficient_quota", "usage_not_included"):
        return ProviderHttpError(QUOTA_MESSAGE, codex_error_info="usageLimitExceeded")
    if code == "cyber_policy":
        return ProviderHttpError(message or "request blocked by policy", codex_error_info="cyberPolicy")
    if code == "invalid_prompt":
        return ProviderHttpError(message or "invalid prompt", codex_error_info="badRequest")
    if code in ("server_is_overloaded", "slow_down"):
        return ProviderHttpError(OVERLOADED_MESSAGE, codex_error_info="serverOverloaded")
    if code == "rate_limit_exceeded":
        return ProviderHttpError(
            message or "rate limit exceeded",
            codex_error_info="rateLimitExceeded",
            retryable=True,
            retry_after_s=parse_try_again(message),
        )
    failure = stream_disconnected(message or f"response failed: {code or 'unknown error'}")
    return failure


def parse_try_again(message: str) -> float | None:
    """The delay in "Please try again in 1.5s" / "… in 250ms", in seconds, if present."""
    match = _TRY_AGAIN.search(message)
    if match is None:
        return None
    value = float(match.group(1))
    return value / 1000 if match.group(2).lower() == "ms" else value


def parse_retry_after(headers: Any) -> float | None:
    """Seconds from `retry-after-ms` or a numeric `retry-after` header; None if absent."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            return max(0.0, float(raw) * scale)
        except ValueError:
            continue
    return None


def redact(text: str, secret: str | None) -> str:
    """`text` with every occurrence of `secret` masked."""
    return text.replace(secret, "***") if secret else text
