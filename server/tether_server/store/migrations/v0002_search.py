"""Schema v2: full-text search over thread names, previews and message text.

`search_docs` holds one row per searchable text (key 'name', 'preview' or the item id) and is
the external content of the FTS5 index, kept in step by triggers. The trigram tokenizer gives
case-insensitive substring matching, the same rule `searchTerm` applies to name and preview.
Item docs cascade away with their item (revert) and every doc with its thread (delete).
"""

from __future__ import annotations

_USER_TEXT = """(SELECT group_concat(json_extract(c.value, '$.text'), char(10))
    FROM json_each(i.item, '$.content') AS c WHERE json_extract(c.value, '$.type') = 'text')"""

STATEMENTS: tuple[str, ...] = (
    """CREATE TABLE search_docs (
        id INTEGER PRIMARY KEY,
        thread_id TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        item_id TEXT,
        text TEXT NOT NULL,
        UNIQUE (thread_id, key),
        FOREIGN KEY (thread_id, item_id) REFERENCES items(thread_id, item_id) ON DELETE CASCADE
    )""",
    "CREATE INDEX search_docs_by_item ON search_docs(thread_id, item_id) WHERE item_id IS NOT NULL",
    """CREATE VIRTUAL TABLE search_fts USING fts5(
        text, content = 'search_docs', content_rowid = 'id', tokenize = 'trigram'
    )""",
    """CREATE TRIGGER search_docs_ai AFTER INSERT ON search_docs BEGIN
        INSERT INTO search_fts(rowid, text) VALUES (new.id, new.text);
    END""",
    """CREATE TRIGGER search_docs_ad AFTER DELETE ON search_docs BEGIN
        INSERT INTO search_fts(search_fts, rowid, text) VALUES ('delete', old.id, old.text);
    END""",
    """CREATE TRIGGER search_docs_au AFTER UPDATE OF text ON search_docs BEGIN
        INSERT INTO search_fts(search_fts, rowid, text) VALUES ('delete', old.id, old.text);
        INSERT INTO search_fts(rowid, text) VALUES (new.id, new.text);
    END""",
    """INSERT INTO search_docs(thread_id, key, text)
        SELECT id, 'name', name FROM threads WHERE coalesce(name, '') <> ''""",
    """INSERT INTO search_docs(thread_id, key, text)
        SELECT id, 'preview', preview FROM threads WHERE preview <> ''""",
    """INSERT INTO search_docs(thread_id, key, item_id, text)
        SELECT i.thread_id, 'item:' || i.item_id, i.item_id, json_extract(i.item, '$.text') FROM items AS i
        WHERE json_extract(i.item, '$.type') = 'agentMessage'
          AND coalesce(json_extract(i.item, '$.text'), '') <> ''""",
    f"""INSERT INTO search_docs(thread_id, key, item_id, text)
        SELECT i.thread_id, 'item:' || i.item_id, i.item_id, {_USER_TEXT} FROM items AS i
        WHERE json_extract(i.item, '$.type') = 'userMessage' AND coalesce({_USER_TEXT}, '') <> ''""",
)
