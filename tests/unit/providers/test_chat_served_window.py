"""The context window read from a chat server's model list, in each server's own field.

The entries are the servers' documented `/models` shapes: vLLM's OpenAI-compatible server
(`ModelCard`), LM Studio's REST API model list, llama.cpp's `llama-server` (`meta` from the
GGUF), and Ollama's OpenAI-compatible list, which says nothing of the context.
"""

from __future__ import annotations

from typing import Any

import pytest

from tether_server.providers.chat.models import served_context_window
from tether_server.providers.served_windows import ChatServer, ServedWindows
from tether_testing import FakeChatServer

VLLM = {
    "id": "Qwen/Qwen3-8B",
    "object": "model",
    "owned_by": "vllm",
    "root": "Qwen/Qwen3-8B",
    "parent": None,
    "max_model_len": 32768,
}
LM_STUDIO = {
    "id": "qwen2-vl-7b-instruct",
    "object": "model",
    "type": "vlm",
    "arch": "qwen2_vl",
    "state": "loaded",
    "max_context_length": 16384,
}
LLAMA_CPP: dict[str, Any] = {
    "id": "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf",
    "object": "model",
    "owned_by": "llamacpp",
    "meta": {"vocab_type": 2, "n_vocab": 128256, "n_ctx_train": 131072, "n_embd": 4096},
}
LLAMA_CPP_RUNNING = {**LLAMA_CPP, "id": "small-ctx", "meta": {**LLAMA_CPP["meta"], "n_ctx": 8192}}
# Port 1 on loopback: nothing listens there without root.
NOTHING_LISTENS = "http://127.0.0.1:1/v1"
OLLAMA = {"id": "llama3.2:latest", "object": "model", "created": 1733000000, "owned_by": "library"}


@pytest.mark.parametrize(
    ("entry", "window"),
    [
        (VLLM, 32768),
        (LM_STUDIO, 16384),
        (LLAMA_CPP, 131072),
        (LLAMA_CPP_RUNNING, 8192),  # the context the server runs with, not the trained one
        (OLLAMA, None),
    ],
    ids=["vllm", "lmstudio", "llamacpp", "llamacpp-n_ctx", "ollama"],
)
async def test_each_servers_field_gives_the_window(entry: dict[str, Any], window: int | None) -> None:
    async with FakeChatServer(models=[OLLAMA, entry]) as fake:
        assert await served_context_window(fake.base_url, str(entry["id"])) == window


async def test_a_model_the_server_does_not_list_has_no_window() -> None:
    async with FakeChatServer(models=[VLLM]) as fake:
        assert await served_context_window(fake.base_url, "other") is None


async def test_the_list_is_read_once_per_provider_and_model_and_a_dead_server_is_ignored() -> None:
    async with FakeChatServer(models=[VLLM]) as fake:
        servers = {"up": ChatServer(fake.base_url), "down": ChatServer(NOTHING_LISTENS)}
        asked: list[str] = []

        def server_for(provider_id: str) -> ChatServer | None:
            asked.append(provider_id)
            return servers.get(provider_id)

        windows = ServedWindows(server_for)
        model = str(VLLM["id"])
        assert windows("up", model) is None  # not known yet: the read runs in the background
        assert windows("down", model) is None
        await windows.settled()
        assert windows("up", model) == 32768
        assert windows("down", model) is None
        assert windows("responses", "gpt-5.5") is None  # not a chat provider: nothing to read
        assert asked == ["up", "down", "responses"]
        await windows.aclose()
