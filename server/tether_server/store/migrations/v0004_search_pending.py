"""Schema v4: items written but not yet in the search index (indexed just after, off the commit)."""

from __future__ import annotations

STATEMENTS: tuple[str, ...] = (
    """CREATE TABLE search_pending (
        thread_id TEXT NOT NULL,
        item_id TEXT NOT NULL,
        PRIMARY KEY (thread_id, item_id)
    ) WITHOUT ROWID""",
)
