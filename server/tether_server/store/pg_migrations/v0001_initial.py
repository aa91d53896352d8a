"""PostgreSQL schema v1: everything the SQLite store holds at its v7, searched through pg_trgm.

`search_docs` holds one row per searchable text (name, preview, each message item's text), written
in the same transaction as what it comes from; a GIN trigram index answers `ILIKE '%term%'`.
Every other text column is `COLLATE "C"`: ids sort and compare byte-wise, as in SQLite, whatever
the database's locale; search texts keep the database's collation, whose case folding ILIKE uses.
Memberships, queued messages and attachments may name a thread not written yet, so they have no
foreign key to `threads`: one trigger drops them with their thread, as the SQLite triggers do.
"""

from __future__ import annotations

STATEMENTS: tuple[str, ...] = (
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    """CREATE TABLE threads (
        id TEXT COLLATE "C" PRIMARY KEY,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        recency_at BIGINT NOT NULL,
        cwd TEXT COLLATE "C" NOT NULL,
        model TEXT COLLATE "C" NOT NULL,
        model_provider TEXT COLLATE "C" NOT NULL,
        source TEXT COLLATE "C" NOT NULL,
        cli_version TEXT COLLATE "C" NOT NULL DEFAULT '',
        originator TEXT COLLATE "C" NOT NULL DEFAULT '',
        name TEXT COLLATE "C",
        preview TEXT COLLATE "C" NOT NULL DEFAULT '',
        archived INTEGER NOT NULL DEFAULT 0,
        forked_from_id TEXT COLLATE "C",
        git_info TEXT COLLATE "C",
        settings TEXT COLLATE "C" NOT NULL DEFAULT '{}',
        last_seq BIGINT NOT NULL DEFAULT 0
    )""",
    "CREATE INDEX threads_by_created ON threads(archived, created_at, id) WHERE preview <> ''",
    "CREATE INDEX threads_by_updated ON threads(archived, updated_at, id) WHERE preview <> ''",
    "CREATE INDEX threads_by_recency ON threads(archived, recency_at, id) WHERE preview <> ''",
    "CREATE INDEX threads_by_cwd_created ON threads(cwd, archived, created_at, id) WHERE preview <> ''",
    """CREATE TABLE turns (
        thread_id TEXT COLLATE "C" NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
        turn_id TEXT COLLATE "C" NOT NULL,
        ordinal BIGINT NOT NULL,
        status TEXT COLLATE "C" NOT NULL,
        error TEXT COLLATE "C",
        started_at BIGINT,
        completed_at BIGINT,
        duration_ms BIGINT,
        PRIMARY KEY (thread_id, turn_id)
    )""",
    "CREATE INDEX turns_by_ordinal ON turns(thread_id, ordinal, turn_id)",
    "CREATE INDEX turns_in_progress ON turns(status) WHERE status = 'inProgress'",
    """CREATE TABLE items (
        thread_id TEXT COLLATE "C" NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
        item_id TEXT COLLATE "C" NOT NULL,
        turn_id TEXT COLLATE "C" NOT NULL,
        ordinal BIGINT NOT NULL,
        item TEXT COLLATE "C" NOT NULL,
        started_at_ms BIGINT,
        completed_at_ms BIGINT,
        PRIMARY KEY (thread_id, item_id)
    )""",
    "CREATE INDEX items_by_ordinal ON items(thread_id, ordinal, item_id)",
    "CREATE INDEX items_by_turn ON items(thread_id, turn_id, ordinal, item_id)",
    """CREATE TABLE history (
        thread_id TEXT COLLATE "C" NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
        ordinal BIGINT NOT NULL,
        turn_id TEXT COLLATE "C" NOT NULL,
        item TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (thread_id, ordinal)
    )""",
    "CREATE INDEX history_by_turn ON history(thread_id, turn_id)",
    """CREATE TABLE events (
        thread_id TEXT COLLATE "C" NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
        seq BIGINT NOT NULL,
        method TEXT COLLATE "C" NOT NULL,
        params TEXT COLLATE "C" NOT NULL,
        emitted_at_ms BIGINT NOT NULL,
        PRIMARY KEY (thread_id, seq)
    )""",
    "CREATE INDEX events_by_method ON events(thread_id, method, seq)",
    """CREATE TABLE search_docs (
        thread_id TEXT COLLATE "C" NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
        key TEXT COLLATE "C" NOT NULL,
        item_id TEXT COLLATE "C",
        text TEXT NOT NULL,
        PRIMARY KEY (thread_id, key),
        FOREIGN KEY (thread_id, item_id) REFERENCES items(thread_id, item_id) ON DELETE CASCADE
    )""",
    "CREATE INDEX search_docs_trigrams ON search_docs USING gin (text gin_trgm_ops)",
    """CREATE TABLE read_states (
        thread_id TEXT COLLATE "C" PRIMARY KEY REFERENCES threads(id) ON DELETE CASCADE,
        first_unread TEXT COLLATE "C",
        revision TEXT COLLATE "C" NOT NULL
    )""",
    """CREATE TABLE goals (
        thread_id TEXT COLLATE "C" PRIMARY KEY REFERENCES threads(id) ON DELETE CASCADE,
        goal TEXT COLLATE "C" NOT NULL
    )""",
    """CREATE TABLE sections (
        id TEXT COLLATE "C" PRIMARY KEY,
        name TEXT COLLATE "C" NOT NULL,
        appearance TEXT COLLATE "C"
    )""",
    """INSERT INTO sections (id, name, appearance)
        VALUES ('01984de2-8f74-7c91-a3b2-5c5e937cf318', 'Pinned', NULL)""",
    """CREATE TABLE section_members (
        thread_id TEXT COLLATE "C" PRIMARY KEY,
        section_id TEXT COLLATE "C" NOT NULL REFERENCES sections(id) ON DELETE CASCADE,
        position BIGINT NOT NULL,
        entered_at BIGINT NOT NULL
    )""",
    "CREATE INDEX section_members_by_position ON section_members(section_id, position, thread_id)",
    """CREATE TABLE thread_attachments (
        id TEXT COLLATE "C" PRIMARY KEY,
        thread_id TEXT COLLATE "C" NOT NULL,
        attachment_type TEXT COLLATE "C" NOT NULL,
        identity_key TEXT COLLATE "C" NOT NULL,
        payload TEXT COLLATE "C" NOT NULL,
        created_at BIGINT NOT NULL,
        UNIQUE (thread_id, attachment_type, identity_key)
    )""",
    "CREATE INDEX thread_attachments_by_thread ON thread_attachments(thread_id, created_at, id)",
    """CREATE INDEX thread_attachments_by_identity
        ON thread_attachments(attachment_type, identity_key, thread_id)""",
    """CREATE TABLE queued_submissions (
        id TEXT COLLATE "C" PRIMARY KEY,
        thread_id TEXT COLLATE "C" NOT NULL,
        position BIGINT NOT NULL,
        client_user_message_id TEXT COLLATE "C" NOT NULL,
        input TEXT COLLATE "C" NOT NULL,
        metadata TEXT COLLATE "C"
    )""",
    "CREATE INDEX queued_submissions_by_position ON queued_submissions(thread_id, position, id)",
    """CREATE TABLE projects (
        id TEXT COLLATE "C" PRIMARY KEY,
        name TEXT COLLATE "C" NOT NULL,
        roots TEXT COLLATE "C" NOT NULL,
        metadata TEXT COLLATE "C" NOT NULL,
        position BIGINT NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        idempotency_key TEXT COLLATE "C" UNIQUE
    )""",
    """CREATE TABLE project_members (
        thread_id TEXT COLLATE "C" PRIMARY KEY,
        project_id TEXT COLLATE "C" NOT NULL REFERENCES projects(id) ON DELETE CASCADE
    )""",
    "CREATE INDEX project_members_by_project ON project_members(project_id, thread_id)",
    """CREATE FUNCTION tether_thread_gone() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        DELETE FROM section_members WHERE thread_id = OLD.id;
        DELETE FROM thread_attachments WHERE thread_id = OLD.id;
        DELETE FROM queued_submissions WHERE thread_id = OLD.id;
        DELETE FROM project_members WHERE thread_id = OLD.id;
        RETURN OLD;
    END $$""",
    """CREATE TRIGGER thread_gone AFTER DELETE ON threads
        FOR EACH ROW EXECUTE FUNCTION tether_thread_gone()""",
)
