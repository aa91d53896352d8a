"""`<think>…</think>` at the start of a message's content: reasoning, told apart from the answer.

Reasoning models served without a reasoning parser (DeepSeek-R1 and Qwen3 on llama.cpp or vLLM
by default, older Ollama) put their thinking in the content, between these tags. Tags may be cut
anywhere across chunks, so a possible partial tag is held back until the next chunk settles it.
Only a block opening the message counts: once answer text has been streamed, a `<think>` is text
the model wrote (a model explaining the tags, say).
"""

from __future__ import annotations

OPEN = "<think>"
CLOSE = "</think>"


class ThinkSplitter:
    """Feed content deltas; get back (reasoning, text) pieces in order."""

    def __init__(self) -> None:
        self._held = ""
        self._thinking = False
        self._settled = False  # past the point where a block may open: all further content is text

    def feed(self, delta: str) -> list[tuple[str, str]]:
        """The pieces `delta` completes: ``("reasoning", text)`` or ``("text", text)``."""
        if self._settled and not self._thinking:
            return [("text", delta)] if delta else []
        buffer = self._held + delta
        self._held = ""
        out: list[tuple[str, str]] = []
        while buffer:
            if self._thinking:
                end = buffer.find(CLOSE)
                if end < 0:
                    keep = _partial_suffix(buffer, CLOSE)
                    _add(out, "reasoning", buffer[: len(buffer) - keep])
                    self._held = buffer[len(buffer) - keep :]
                    return out
                _add(out, "reasoning", buffer[:end])
                buffer = buffer[end + len(CLOSE) :].lstrip()
                self._thinking, self._settled = False, True
                _add(out, "text", buffer)
                return out
            stripped = buffer.lstrip()
            if stripped.startswith(OPEN):
                self._thinking = True
                buffer = stripped[len(OPEN) :].lstrip("\n")
                continue
            if OPEN.startswith(stripped):  # blank, or perhaps the tag's beginning
                self._held = buffer
                return out
            self._settled = True
            _add(out, "text", buffer)
            return out
        return out

    def flush(self) -> list[tuple[str, str]]:
        """What is held back, at the end of the message."""
        held, self._held = self._held, ""
        if not held:
            return []
        return [("reasoning" if self._thinking else "text", held)]


def _add(out: list[tuple[str, str]], kind: str, text: str) -> None:
    if text:
        out.append((kind, text))


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest end of `text` that is a beginning of `tag`."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:size]):
            return size
    return 0
