"""A scripted fake of a Chat Completions server (Ollama, vLLM, llama.cpp, LM Studio, proxies).

The Responses fake's server with another endpoint: real HTTP/1.1 + SSE on loopback, one scripted
answer per ``POST …/chat/completions`` (see `tether_testing.chat_script`), requests recorded, gates
released by the test, and ``GET …/models`` listing `models`::

    async with FakeChatServer([chat_text_reply("Hello")], models=["qwen3:8b"]) as fake:
        provider = ChatProvider(ProviderSettings("fake", fake.base_url))
"""

from __future__ import annotations

from types import TracebackType

from tether_testing.fake_responses import FakeResponsesServer


class FakeChatServer(FakeResponsesServer):
    """Plays back scripted chat completions, one per ``POST …/chat/completions``."""

    model_path = "/chat/completions"

    async def __aenter__(self) -> FakeChatServer:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()
