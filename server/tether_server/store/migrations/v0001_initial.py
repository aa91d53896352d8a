"""Schema v1: threads, turns, items, model history and the durable event log."""

from __future__ import annotations

# One index per list sort key, partial on listed (materialized) threads. The key is
# (archived, sort value, id): SQLite walks an index in either direction, so each serves both
# `asc` and `desc` keyset pages with no sort step, id breaking ties. Listing one workspace (a cwd
# filter, as editors do) has the same three with cwd in front.
STATEMENTS: tuple[str, ...] = (
    """CREATE TABLE threads (
        id TEXT PRIMARY KEY,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        recency_at INTEGER NOT NULL,
        cwd TEXT NOT NULL,
        model TEXT NOT NULL,
        model_provider TEXT NOT NULL,
        source TEXT NOT NULL,
        cli_version TEXT NOT NULL DEFAULT '',
        originator TEXT NOT NULL DEFAULT '',
        name TEXT,
        preview TEXT NOT NULL DEFAULT '',
        archived INTEGER NOT NULL DEFAULT 0,
        forked_from_id TEXT,
        git_info TEXT,
        settings TEXT NOT NULL DEFAULT '{}',
        last_seq INTEGER NOT NULL DEFAULT 0
    )""",
    "CREATE INDEX threads_by_created ON threads(archived, created_at, id) WHERE preview <> ''",
    "CREATE INDEX threads_by_updated ON threads(archived, updated_at, id) WHERE preview <> ''",
    "CREATE INDEX threads_by_recency ON threads(archived, recency_at, id) WHERE preview <> ''",
    "CREATE INDEX threads_by_cwd_created ON threads(cwd, archived, created_at, id) WHERE preview <> ''",
    "CREATE INDEX threads_by_cwd_updated ON threads(cwd, archived, updated_at, id) WHERE preview <> ''",
    "CREATE INDEX threads_by_cwd_recency ON threads(cwd, archived, recency_at, id) WHERE preview <> ''",
    """CREATE TABLE turns (
        thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
        turn_id TEXT NOT NULL,
        ordinal INTEGER NOT NULL,
        status TEXT NOT NULL,
        error TEXT,
        started_at INTEGER,
        completed_at INTEGER,
        duration_ms INTEGER,
        PRIMARY KEY (thread_id, turn_id)
    ) WITHOUT ROWID""",
    "CREATE INDEX turns_by_ordinal ON turns(thread_id, ordinal, turn_id)",
    "CREATE INDEX turns_in_progress ON turns(status) WHERE status = 'inProgress'",
    """CREATE TABLE items (
        thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
        item_id TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        ordinal INTEGER NOT NULL,
        item TEXT NOT NULL,
        started_at_ms INTEGER,
        completed_at_ms INTEGER,
        PRIMARY KEY (thread_id, item_id)
    )""",
    "CREATE INDEX items_by_ordinal ON items(thread_id, ordinal, item_id)",
    "CREATE INDEX items_by_turn ON items(thread_id, turn_id, ordinal, item_id)",
    """CREATE TABLE history (
        thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        turn_id TEXT NOT NULL,
        item TEXT NOT NULL,
        PRIMARY KEY (thread_id, ordinal)
    ) WITHOUT ROWID""",
    "CREATE INDEX history_by_turn ON history(thread_id, turn_id)",
    """CREATE TABLE events (
        thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        method TEXT NOT NULL,
        params TEXT NOT NULL,
        emitted_at_ms INTEGER NOT NULL,
        PRIMARY KEY (thread_id, seq)
    ) WITHOUT ROWID""",
)
