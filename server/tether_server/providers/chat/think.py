"""`<think>…</think>` at the start of a message's content: reasoning, told apart from the answer.

Reasoning models served without a reasoning parser (DeepSeek-R1 and Qwen3 on llama.cpp or vLLM
by default, older Ollama) put their thinking in the content, between these tags. Tags may be cut
anywhere across chunks, so a possible partial tag is held back until the next chunk settles it.
Only a block opening the message counts: once answer text has been streamed, a `<think>` is text
the model wrote (a model explaining the tags, say).

Qwen3's thinking templates (QwQ, Qwen3-*-Thinking) end the prompt with ``<think>\n``, so the model
writes only the closing tag: its content is thoughts, ``</think>``, then the answer. That text
streams as answer text until the tag shows it was not (nothing says so sooner, and holding every
model's answer back until its end would stop it streaming); then `UNTAGGED_CLOSE` says that all the
text so far was reasoning. A ``</think>`` after a ``<think>`` in the text is the model writing about
the tags, and stays text.
"""

from __future__ import annotations

OPEN = "<think>"
CLOSE = "</think>"
UNTAGGED_CLOSE = "untagged_close"
"""The kind of the piece that says: every piece of text before this one was reasoning."""


class ThinkSplitter:
    """Feed content deltas; get back (reasoning, text) pieces in order."""

    def __init__(self) -> None:
        self._held = ""
        self._thinking = False
        self._settled = False  # past the point where a block may open: all further content is text
        self._may_close = True  # no tag seen yet: a bare `</think>` would end untagged reasoning

    def feed(self, delta: str) -> list[tuple[str, str]]:
        """The pieces `delta` completes: ``("reasoning", text)`` or ``("text", text)``."""
        if self._settled and not self._thinking:
            return self._after_text(delta)
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
                self._thinking, self._settled, self._may_close = False, True, False
                _add(out, "text", buffer)
                return out
            stripped = buffer.lstrip()
            if stripped.startswith(OPEN):
                self._thinking, self._may_close = True, False
                buffer = stripped[len(OPEN) :].lstrip("\n")
                continue
            if OPEN.startswith(stripped):  # blank, or perhaps the tag's beginning
                self._held = buffer
                return out
            self._settled = True
            return self._after_text(buffer)
        return out

    def _after_text(self, delta: str) -> list[tuple[str, str]]:
        """Answer text, unless a bare closing tag in it shows the text so far was reasoning."""
        if not self._may_close:
            return [("text", delta)] if delta else []
        buffer = self._held + delta
        self._held = ""
        end, opened = buffer.find(CLOSE), buffer.find(OPEN)
        if opened >= 0 and (end < 0 or opened < end):
            self._may_close = False  # the model writes about the tags
            return [("text", buffer)] if buffer else []
        out: list[tuple[str, str]] = []
        if end < 0:
            keep = max(_partial_suffix(buffer, CLOSE), _partial_suffix(buffer, OPEN))
            _add(out, "text", buffer[: len(buffer) - keep])
            self._held = buffer[len(buffer) - keep :]
            return out
        self._may_close = False
        _add(out, "text", buffer[:end])
        out.append((UNTAGGED_CLOSE, ""))
        _add(out, "text", buffer[end + len(CLOSE) :].lstrip())
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
