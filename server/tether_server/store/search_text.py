"""What `thread/list` `searchTerm` looks at, shared by both stores so they match the same threads.

A thread matches when the term is a case-insensitive substring of its name, its preview, or the
text of one of its `userMessage` / `agentMessage` items.
"""

from __future__ import annotations

from typing import Any

SEARCHED_ITEM_TYPES = frozenset({"userMessage", "agentMessage"})


def item_text(item: dict[str, Any]) -> str:
    """The searchable text of a wire ThreadItem ("" for item types that are not searched)."""
    kind = item.get("type")
    if kind == "agentMessage":
        text = item.get("text")
        return text if isinstance(text, str) else ""
    if kind == "userMessage":
        parts = item.get("content")
        if not isinstance(parts, list):
            return ""
        texts = [p["text"] for p in parts if isinstance(p, dict) and p.get("type") == "text"]
        return "\n".join(t for t in texts if isinstance(t, str))
    return ""


def contains_folded(text: str | None, term: str) -> bool:
    """The matching rule: `term` occurs in `text`, ignoring case (Unicode-aware)."""
    return text is not None and term.lower() in text.lower()


def normalise_term(term: str | None) -> str | None:
    """None when the term does not filter at all (absent or empty)."""
    return term if term else None
