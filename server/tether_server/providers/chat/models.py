"""The models a Chat Completions server offers: ``GET {base_url}/models`` (OpenAI's list shape).

Ollama, LM Studio, vLLM and llama.cpp all answer it with ``{"object": "list", "data": [{"id": …}]}``.
"""

from __future__ import annotations

from collections.abc import Mapping

import httpx

from tether_server.errors import ProviderError
from tether_server.providers import errors

LIST_TIMEOUT_S = 5.0


async def list_models(
    base_url: str, *, api_key: str | None = None, headers: Mapping[str, str] | None = None
) -> list[str]:
    """The ids the server lists, in its order.

    Raises:
        ProviderError: no server answers at `base_url`, or it answers with an error or no list.
    """
    url = base_url.rstrip("/") + "/models"
    sent = dict(headers or {})
    if api_key:
        sent["Authorization"] = f"Bearer {api_key}"
    try:
        async with httpx.AsyncClient(timeout=LIST_TIMEOUT_S, trust_env=False) as client:
            response = await client.get(url, headers=sent)
    except httpx.TransportError as exc:
        detail = errors.redact(str(exc) or type(exc).__name__, api_key)
        raise ProviderError(
            f"no model server answers at {base_url} (is it running?): {detail}",
            codex_error_info={"httpConnectionFailed": {"httpStatusCode": None}},
        ) from None
    if response.status_code >= 400:
        raise errors.from_http_status(response.status_code, response.content, secret=api_key)
    try:
        data = response.json().get("data")
    except (ValueError, AttributeError):
        data = None
    if not isinstance(data, list):
        raise ProviderError(f"{url} answered without a model list")
    return [str(entry["id"]) for entry in data if isinstance(entry, dict) and entry.get("id")]
