"""Deferred MCP tools behind the Responses API's client-run `tool_search`, as Codex 0.169.0 offers them.

The request carries one `{"type": "tool_search", "execution": "client"}` tool and no MCP definition.
The model's `tool_search_call` is answered with a `tool_search_output` listing the best matches, one
`namespace` per server (`mcp__<server>`) holding the tools by their own names; the model then calls
`{"type": "function_call", "namespace": "mcp__<server>", "name": "<tool>"}`. The outputs stay in the
history, so a found tool stays callable in later requests while the tool list never changes (the
request prefix stays cacheable however many tools the servers have).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

from tether_server.tools.mcp.manager import PREFIX, McpTool

DEFAULT_LIMIT = 8
"""Codex's default when the model gives no `limit`."""

SPEC: dict[str, Any] = {
    "type": "tool_search",
    "execution": "client",
    "description": "# Tool discovery\n\nSearches the tools that were not listed up front (the MCP servers' "
    "tools) by name and description, and makes the best matches callable from your next step. When a task "
    "needs a tool you do not see, search for it here first.",
    "parameters": {
        "type": "object",
        "properties": {
            "limit": {
                "type": "number",
                "description": f"Maximum number of tools to return (default {DEFAULT_LIMIT}).",
            },
            "query": {"type": "string", "description": "Words describing the tool you need."},
        },
        "required": ["query"],
        "additionalProperties": False,
    },
}


def namespace_of(server: str) -> str:
    return PREFIX + server


def search(tools: list[McpTool], arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """The `tools` member of the output: the best `limit` matches (BM25 over name and description),
    grouped by server in the order of each server's best match."""
    limit = arguments.get("limit")
    count = (
        int(limit)
        if isinstance(limit, int | float) and not isinstance(limit, bool) and limit >= 1
        else DEFAULT_LIMIT
    )
    ranked = _bm25(tools, _words(str(arguments.get("query") or "")))[:count]
    groups: dict[str, list[dict[str, Any]]] = {}
    for tool in ranked:
        groups.setdefault(tool.server, []).append(_definition(tool))
    return [
        {
            "type": "namespace",
            "name": namespace_of(server),
            "description": f"Tools in the {namespace_of(server)} namespace.",
            "tools": found,
        }
        for server, found in groups.items()
    ]


def _words(text: str) -> list[str]:
    # snake_case and camelCase names split into words, so "lookup key" finds `lookup_key`.
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def _bm25(tools: list[McpTool], query: list[str]) -> list[McpTool]:
    docs = [Counter(_words(f"{t.server} {t.name} {t.description}")) for t in tools]
    if not docs or not query:
        return []
    k1, b = 1.2, 0.75
    average = sum(sum(d.values()) for d in docs) / len(docs) or 1.0
    scored: list[tuple[float, int]] = []
    for index, doc in enumerate(docs):
        length = sum(doc.values())
        score = 0.0
        for word in set(query):
            freq = doc.get(word, 0)
            if not freq:
                continue
            holding = sum(1 for d in docs if word in d)
            idf = math.log(1 + (len(docs) - holding + 0.5) / (holding + 0.5))
            score += idf * freq * (k1 + 1) / (freq + k1 * (1 - b + b * length / average))
        if score > 0:
            scored.append((-score, index))
    scored.sort()
    return [tools[index] for _, index in scored]


def _definition(tool: McpTool) -> dict[str, Any]:
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "strict": False,
        "defer_loading": True,
        "parameters": model_schema(tool.input_schema),
    }


_ORDER = ("type", "description", "enum", "items", "properties", "required", "additionalProperties")


def model_schema(schema: Any) -> dict[str, Any]:
    """An MCP input schema as Codex hands it to the model: `type`, `properties`, `required` first,
    the SDKs' `title` annotations left out (property names called "title" are kept)."""
    if not isinstance(schema, dict):
        return {"type": "object", "properties": {}}
    out = _clean(schema)
    out.setdefault("type", "object")
    if out.get("type") == "object":
        out.setdefault("properties", {})
    ordered = {key: out[key] for key in _ORDER if key in out}
    ordered.update((key, value) for key, value in out.items() if key not in ordered)
    return ordered


def _clean(schema: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: _clean(p) if isinstance(p, dict) else p for name, p in value.items()}
        elif key == "items" and isinstance(value, dict):
            out[key] = _clean(value)
        else:
            out[key] = value
    return out
