"""Schema v7: thread attachments, queued follow-up messages and projects (the desktop surface).

Like section memberships, a queued message or a project membership may name a thread not written
yet (Codex queues on a thread before its first turn), so none has a foreign key to `threads`;
triggers drop them with their thread. Attachments need a written thread (Codex refuses the
others), and go with it the same way.
"""

from __future__ import annotations

STATEMENTS: tuple[str, ...] = (
    """CREATE TABLE thread_attachments (
        id TEXT PRIMARY KEY,
        thread_id TEXT NOT NULL,
        attachment_type TEXT NOT NULL,
        identity_key TEXT NOT NULL,
        payload TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (thread_id, attachment_type, identity_key)
    )""",
    "CREATE INDEX thread_attachments_by_thread ON thread_attachments(thread_id, created_at, id)",
    """CREATE INDEX thread_attachments_by_identity
        ON thread_attachments(attachment_type, identity_key, thread_id)""",
    """CREATE TRIGGER thread_attachments_gone_with_thread AFTER DELETE ON threads
        BEGIN DELETE FROM thread_attachments WHERE thread_id = old.id; END""",
    """CREATE TABLE queued_submissions (
        id TEXT PRIMARY KEY,
        thread_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        client_user_message_id TEXT NOT NULL,
        input TEXT NOT NULL,
        metadata TEXT
    )""",
    "CREATE INDEX queued_submissions_by_position ON queued_submissions(thread_id, position, id)",
    """CREATE TRIGGER queued_submissions_gone_with_thread AFTER DELETE ON threads
        BEGIN DELETE FROM queued_submissions WHERE thread_id = old.id; END""",
    """CREATE TABLE projects (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        roots TEXT NOT NULL,
        metadata TEXT NOT NULL,
        position INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        idempotency_key TEXT UNIQUE
    )""",
    """CREATE TABLE project_members (
        thread_id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE
    )""",
    "CREATE INDEX project_members_by_project ON project_members(project_id, thread_id)",
    """CREATE TRIGGER project_members_gone_with_thread AFTER DELETE ON threads
        BEGIN DELETE FROM project_members WHERE thread_id = old.id; END""",
)
