"""Where the crash battery looks behind the daemon: the home's SQLite file, or a PostgreSQL database.

On PostgreSQL the daemon is a fleet node: every restart uses the same `--node-id`, as a node
restarted under its configured name does, so it takes back its own leases at once rather than
waiting for them to expire (the seconds a new name would wait are not what the battery tests).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

import psycopg

DB_FILE = "tether.sqlite"
NODE_ID = "chaos-node"


@dataclass(frozen=True)
class StoreProbe:
    home: Path
    url: str | None = None  # a postgresql:// URL; None: the home's SQLite file

    def daemon_args(self) -> list[str]:
        return [] if self.url is None else ["--store", self.url, "--node-id", NODE_ID]

    def integrity(self) -> str:
        """SQLite's own check of the file; PostgreSQL's WAL recovers a killed client's
        transactions by itself, so what is left to check is that every table still reads."""
        if self.url is not None:
            with psycopg.connect(self.url) as conn:
                for table in ("threads", "turns", "items", "events", "thread_leases"):
                    conn.execute(f"SELECT count(*) FROM {table}").fetchone()
            return "ok"
        db = sqlite3.connect(self.home / DB_FILE)
        try:
            return str(db.execute("PRAGMA integrity_check").fetchone()[0])
        finally:
            db.close()

    def stored_seqs(self, thread_id: str, after: int) -> list[int]:
        sql = "SELECT seq FROM events WHERE thread_id = ? AND seq > ? ORDER BY seq"
        if self.url is not None:
            with psycopg.connect(self.url) as conn:
                rows = conn.execute(sql.replace("?", "%s"), (thread_id, after)).fetchall()
            return [int(r[0]) for r in rows]
        db = sqlite3.connect(self.home / DB_FILE)
        try:
            return [int(r[0]) for r in db.execute(sql, (thread_id, after))]
        finally:
            db.close()
