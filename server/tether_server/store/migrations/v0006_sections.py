"""Schema v6: thread sections (`threadSection/*`) and which section each thread sits in, where.

A membership row may name a thread not written yet (Codex lets a client section a thread before
its first message), so it has no foreign key to `threads`; a trigger drops it with its thread.
The built-in "Pinned" section is a row like the others, with Codex's fixed id.
"""

from __future__ import annotations

STATEMENTS: tuple[str, ...] = (
    """CREATE TABLE sections (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        appearance TEXT
    )""",
    """INSERT INTO sections (id, name, appearance)
        VALUES ('01984de2-8f74-7c91-a3b2-5c5e937cf318', 'Pinned', NULL)""",
    """CREATE TABLE section_members (
        thread_id TEXT PRIMARY KEY,
        section_id TEXT NOT NULL REFERENCES sections(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        entered_at INTEGER NOT NULL
    )""",
    "CREATE INDEX section_members_by_position ON section_members(section_id, position, thread_id)",
    """CREATE TRIGGER section_members_gone_with_thread AFTER DELETE ON threads
        BEGIN DELETE FROM section_members WHERE thread_id = old.id; END""",
)
