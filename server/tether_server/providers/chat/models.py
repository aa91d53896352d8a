"""The models a Chat Completions server offers: ``GET {base_url}/models`` (OpenAI's list shape).

Ollama, LM Studio, vLLM and llama.cpp all answer it with ``{"object": "list", "data": [{"id": …}]}``;
some entries also say how long a context the model takes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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
    entries = await _model_entries(base_url, api_key, headers)
    return [str(entry["id"]) for entry in entries if entry.get("id")]


async def served_context_window(
    base_url: str, model: str, *, api_key: str | None = None, headers: Mapping[str, str] | None = None
) -> int | None:
    """The context window the server reports for `model`; None when its list does not say.

    Raises:
        ProviderError: no server answers at `base_url`, or it answers with an error or no list.
    """
    for entry in await _model_entries(base_url, api_key, headers):
        if entry.get("id") == model:
            return context_window_of(entry)
    return None


def context_window_of(entry: Mapping[str, Any]) -> int | None:
    """The context window one `/models` entry states, in whichever server's field it uses.

    - vLLM: ``max_model_len``, the length the engine was started with (its OpenAI-compatible
      server's ``ModelCard``; https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html).
    - LM Studio: ``max_context_length`` (its REST API's model entries;
      https://lmstudio.ai/docs/app/api/endpoints/rest).
    - llama.cpp's ``llama-server``: ``meta.n_ctx`` when the build reports the context it runs
      with, else ``meta.n_ctx_train``, the model's trained length (tools/server/README.md,
      "GET /v1/models"; https://github.com/ggml-org/llama.cpp/tree/master/tools/server).
    - Ollama lists only ``id``, ``object``, ``created`` and ``owned_by``
      (https://github.com/ollama/ollama/blob/main/docs/openai.md), so it has none here.
    """
    meta = entry.get("meta")
    meta = meta if isinstance(meta, Mapping) else {}
    candidates = (
        entry.get("max_model_len"),
        entry.get("max_context_length"),
        meta.get("n_ctx"),
        meta.get("n_ctx_train"),
    )
    for value in candidates:
        # bool is an int; a server's `true` is no window.
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


async def _model_entries(
    base_url: str, api_key: str | None, headers: Mapping[str, str] | None
) -> list[dict[str, Any]]:
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
    return [entry for entry in data if isinstance(entry, dict)]
