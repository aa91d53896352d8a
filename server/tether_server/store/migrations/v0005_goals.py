"""Schema v5: a thread's goal (`thread/goal/*`), one per thread, as its wire JSON; gone with the thread."""

from __future__ import annotations

STATEMENTS: tuple[str, ...] = (
    """CREATE TABLE goals (
        thread_id TEXT PRIMARY KEY REFERENCES threads(id) ON DELETE CASCADE,
        goal TEXT NOT NULL
    )""",
)
