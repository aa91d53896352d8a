"""The Chat Completions provider: `wire_api = "chat"` (Ollama, LM Studio, vLLM, llama.cpp, proxies)."""

from tether_server.providers.chat.provider import ChatProvider

__all__ = ["ChatProvider"]
