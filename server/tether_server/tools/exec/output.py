"""What the model sees of a command's output: bounded buffering, head+tail truncation, the text format.

The model-facing text of `exec_command` / `write_stdin` is (core.md §3.3)::

    Chunk ID: 1a2b3c
    Wall time: 0.0123 seconds
    Process exited with code 0          (or: Process running with session ID 1000)
    Original token count: 1
    Output:
    hi

Truncation follows core.md §6.3 (token policy): tokens are estimated as ceil(bytes / 4); an over-budget
text keeps its first and last budget/2 bytes, cut on character boundaries, joined by
`…N tokens truncated…`, and gets a `Total output lines: L` header.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass

DEFAULT_MAX_OUTPUT_TOKENS = 10_000
BYTES_PER_TOKEN = 4
# Retained per collection window before the model budget is applied (core.md §6.2: 1 MiB, 50/50 head/tail).
RETAINED_OUTPUT_CHARS = 1024 * 1024

_DENIAL_KEYWORDS = (
    "operation not permitted",
    "permission denied",
    "read-only file system",
    "seccomp",
    "sandbox",
    "landlock",
    "failed to write file",
)
_NOT_DENIED_EXIT_CODES = frozenset({2, 126, 127})


def approx_token_count(text: str) -> int:
    """Estimates tokens the way the budget is charged: ceil(UTF-8 bytes / 4)."""
    return _tokens_for_bytes(len(text.encode("utf-8")))


def _tokens_for_bytes(n: int) -> int:
    return (n + BYTES_PER_TOKEN - 1) // BYTES_PER_TOKEN


def count_lines(text: str) -> int:
    """Counts lines like a line iterator would: a trailing newline does not start a new line."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def truncate_for_model(
    text: str, max_tokens: int, *, total_bytes: int | None = None, total_lines: int | None = None
) -> str:
    """Keeps `text` within `max_tokens`, replacing its middle with a marker when it is too long.

    Args:
        text: the output of one call (possibly already missing a middle part, see `HeadTailBuffer`).
        max_tokens: the budget; 0 or less keeps nothing but the marker.
        total_bytes: the size of the complete output when `text` lacks its middle.
        total_lines: the line count of the complete output when `text` lacks its middle.

    Returns:
        `text` unchanged when it fits, else `Total output lines: L\\n\\n<head>…N tokens truncated…<tail>`.
    """
    data = text.encode("utf-8")
    full_size = max(len(data), total_bytes or 0)
    budget = max(0, max_tokens) * BYTES_PER_TOKEN
    if full_size <= budget:
        return text
    head = _cut_head(data, budget // 2)
    tail = _cut_tail(data[len(head) :], budget - budget // 2)
    removed = full_size - len(head) - len(tail)
    marker = f"…{_tokens_for_bytes(removed)} tokens truncated…"
    body = head.decode("utf-8", "replace") + marker + tail.decode("utf-8", "replace")
    lines = count_lines(text) if total_lines is None else total_lines
    return f"Total output lines: {lines}\n\n{body}"


def _cut_head(data: bytes, limit: int) -> bytes:
    end = min(limit, len(data))
    while end > 0 and end < len(data) and _is_continuation(data[end]):
        end -= 1
    return data[:end]


def _cut_tail(data: bytes, limit: int) -> bytes:
    start = max(0, len(data) - limit)
    while start < len(data) and _is_continuation(data[start]):
        start += 1
    return data[start:]


def _is_continuation(byte: int) -> bool:
    return byte & 0xC0 == 0x80


def format_model_text(
    *,
    chunk_id: str,
    wall_time_s: float,
    exit_code: int | None,
    session_id: int | None,
    original_token_count: int | None,
    output: str,
) -> str:
    """Renders the function_call_output text of `exec_command` / `write_stdin` (core.md §3.3).

    `output` must already be truncated; pass `original_token_count=None` to omit that line.
    """
    lines = []
    if chunk_id:
        lines.append(f"Chunk ID: {chunk_id}")
    lines.append(f"Wall time: {wall_time_s:.4f} seconds")
    if exit_code is not None:
        lines.append(f"Process exited with code {exit_code}")
    if session_id is not None:
        lines.append(f"Process running with session ID {session_id}")
    if original_token_count is not None:
        lines.append(f"Original token count: {original_token_count}")
    lines.append("Output:")
    return "\n".join(lines) + "\n" + output


def looks_like_sandbox_denial(exit_code: int, output: str) -> bool:
    """Guesses whether a failed command was stopped by the sandbox (core.md §6.4).

    Only meaningful when the command actually ran inside a sandbox; the caller checks that.

    Args:
        exit_code: the command's exit code (128+N for a death by signal N).
        output: stdout and stderr as the model would see them.
    """
    if exit_code == 0:
        return False
    lowered = output.lower()
    if any(keyword in lowered for keyword in _DENIAL_KEYWORDS):
        return True
    if exit_code in _NOT_DENIED_EXIT_CODES:
        return False
    return exit_code == 128 + signal.SIGSYS


class HeadTailBuffer:
    """Keeps the first and last `capacity/2` characters of a stream and the size of what it saw.

    Bounds memory for a chatty process between two polls; the model budget is applied later.
    """

    def __init__(self, capacity: int = RETAINED_OUTPUT_CHARS) -> None:
        self._half = max(1, capacity // 2)
        self._reset()

    def _reset(self) -> None:
        self._head: list[str] = []
        self._head_len = 0
        self._tail = ""
        self._total_bytes = 0
        self._total_newlines = 0
        self._last_char = ""
        self._dropped = False

    def append(self, text: str) -> None:
        """Adds decoded text, dropping from the middle once both halves are full."""
        if not text:
            return
        self._total_bytes += len(text.encode("utf-8"))
        self._total_newlines += text.count("\n")
        self._last_char = text[-1]
        room = self._half - self._head_len
        if room > 0:
            self._head.append(text[:room])
            self._head_len += min(room, len(text))
            text = text[room:]
        if text:
            self._tail += text
            if len(self._tail) > self._half:
                self._tail = self._tail[-self._half :]
                self._dropped = True

    def take(self) -> Collected:
        """Returns everything retained since the last call and empties the buffer."""
        lines = self._total_newlines + (0 if self._last_char in ("", "\n") else 1)
        collected = Collected("".join(self._head) + self._tail, self._total_bytes, lines, self._dropped)
        self._reset()
        return collected


@dataclass(frozen=True)
class Collected:
    """Output gathered during one call.

    Attributes:
        text: the retained text (its middle is missing when `lossy`).
        total_bytes: UTF-8 size of everything produced, retained or not.
        total_lines: line count of everything produced.
        lossy: whether the middle was dropped for memory reasons.
    """

    text: str
    total_bytes: int
    total_lines: int
    lossy: bool

    def for_model(self, max_tokens: int) -> str:
        """The text cut to the model budget (core.md §6.3)."""
        if not self.lossy:
            return truncate_for_model(self.text, max_tokens)
        return truncate_for_model(
            self.text, max_tokens, total_bytes=self.total_bytes, total_lines=self.total_lines
        )

    @property
    def token_count(self) -> int:
        """Estimated tokens of the complete output."""
        return _tokens_for_bytes(self.total_bytes)
