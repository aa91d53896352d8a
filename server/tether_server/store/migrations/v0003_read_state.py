"""Schema v3: per-thread read markers (`thread/readState/update`), gone with their thread."""

from __future__ import annotations

STATEMENTS: tuple[str, ...] = (
    """CREATE TABLE read_states (
        thread_id TEXT PRIMARY KEY REFERENCES threads(id) ON DELETE CASCADE,
        first_unread TEXT,
        revision TEXT NOT NULL
    )""",
)
