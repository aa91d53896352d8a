"""The provider's hosted web search: the tool entry in the request and its `webSearch` items.

The provider runs the search itself; the model's output carries `web_search_call` items, which
Tether only reports (and keeps in the history), never executes.
"""

from __future__ import annotations

from typing import Any

from tether_server.core import items
from tether_server.core.ids import now_ms

MODES = ("live", "cached", "indexed", "disabled")
CALL_TYPE = "web_search_call"


def tool_spec(mode: str) -> dict[str, Any] | None:
    """The hosted tool's entry for `mode`, or None when web search is disabled.

    `cached` serves results from the provider's cache only; `live` may fetch pages; `indexed` may
    fetch pages and the provider's index.
    """
    if mode not in ("live", "cached", "indexed"):
        return None
    # Members and order as Codex 0.169.0 sends them for its catalog models.
    spec: dict[str, Any] = {"type": "web_search", "external_web_access": mode != "cached"}
    if mode == "indexed":
        spec["indexed_web_access"] = True
    spec["search_content_types"] = ["text", "image"]
    return spec


def resolve_mode(web_search: object, tools: object) -> str:
    """The effective mode from the `web_search` key, else the older `tools.web_search` switch."""
    if isinstance(web_search, str) and web_search in MODES:
        return web_search
    legacy = tools.get("web_search") if isinstance(tools, dict) else None
    if isinstance(legacy, bool):
        return "live" if legacy else "disabled"
    if isinstance(legacy, str) and legacy in MODES:
        return legacy
    return "disabled"


def _action(raw: Any) -> tuple[str, dict[str, Any] | None]:
    """(the query to show, the wire action) of a Responses `web_search_call` action."""
    if not isinstance(raw, dict):
        return "", None
    kind = raw.get("type")
    if kind == "search":
        query = raw.get("query")
        queries = raw.get("queries")
        queries = [str(q) for q in queries] if isinstance(queries, list) else None
        shown = str(query) if query else (queries[0] if queries else "")
        return shown, {"type": "search", "query": query, "queries": queries}
    if kind == "open_page":
        url = raw.get("url")
        return str(url or ""), {"type": "openPage", "url": url}
    if kind == "find_in_page":
        url, pattern = raw.get("url"), raw.get("pattern")
        shown = f"'{pattern}' in {url}" if pattern and url else str(pattern or url or "")
        return shown, {"type": "findInPage", "url": url, "pattern": pattern}
    return "", {"type": "other"}


def started_item(raw: dict[str, Any]) -> items.WebSearch:
    """The item announced when the call begins: its query is not known yet."""
    return items.WebSearch(str(raw.get("id") or ""), now_ms())


def finish(item: items.WebSearch, raw: dict[str, Any]) -> items.WebSearch:
    """Fill `item` in from the finished `web_search_call`."""
    item.query, item.action = _action(raw.get("action"))
    item.completed_at_ms = now_ms()
    return item
