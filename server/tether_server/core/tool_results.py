"""Bounds on what an outside tool (an MCP server, a client's dynamic tool) returns.

The result lands three times: in `item/completed` to every subscriber, in the stored item (and so
in every `thread/resume` and `thread/read`), and in the model's input. A server that answers
20 MiB would otherwise cost 40 MiB frames (past a client's 16 MiB limit) and far more on disk.
So the item keeps at most `ITEM_CAP_BYTES` of JSON (a command's retained output is the same
size), the model at most `MODEL_CAP_BYTES`, and each says how much was cut.
"""

from __future__ import annotations

from typing import Any

import orjson

from tether_server.tools.exec.output import RETAINED_OUTPUT_CHARS

MODEL_CAP_BYTES = 40_000
ITEM_CAP_BYTES = RETAINED_OUTPUT_CHARS
PROGRESS_CAP_BYTES = 4_096
_META_CAP_BYTES = 64 * 1024


def cap(text: str, limit: int = MODEL_CAP_BYTES) -> str:
    """`text` cut to about `limit` bytes (head and tail kept) with a marker saying how much was dropped."""
    data = text.encode()
    if len(data) <= limit:
        return text
    half = limit // 2
    dropped = len(data) - 2 * half
    head = data[:half].decode(errors="ignore")
    tail = data[-half:].decode(errors="ignore")
    return f"{head}\n…[{dropped} bytes truncated]…\n{tail}"


def json_size(value: Any) -> int:
    return len(orjson.dumps(value))


def _fit(text: str, budget: int) -> str:
    """`cap` with the limit lowered until the JSON string fits `budget` (escapes can grow it 6x)."""
    limit = budget
    while True:
        out = cap(text, limit)
        size = json_size(out)
        if size <= budget or limit <= 1024:
            return out
        limit = max(1024, limit * budget // size - 64)


def mcp_result(result: dict[str, Any], text: str) -> dict[str, Any]:
    """An MCP item's `{content, structuredContent, _meta}`, or past the cap one text block of the
    result's text (itself capped, so the marker shows) in place of the content and structured part."""
    if json_size(result) <= ITEM_CAP_BYTES:
        return result
    meta = result.get("_meta")
    # _meta is kept when small: clients read UI hints there; a large one goes with the rest.
    small_meta = meta if meta is not None and json_size(meta) <= _META_CAP_BYTES else None
    return {
        "content": [{"type": "text", "text": _fit(text, ITEM_CAP_BYTES - _META_CAP_BYTES - 1024)}],
        "structuredContent": None,
        "_meta": small_meta,
    }


def dynamic_content(content: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """A dynamic tool's content items, or past the cap one `inputText` of their (capped) text."""
    if json_size(content) <= ITEM_CAP_BYTES:
        return content
    return [{"type": "inputText", "text": _fit(text, ITEM_CAP_BYTES - 1024)}]
