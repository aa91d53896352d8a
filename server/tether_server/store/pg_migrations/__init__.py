"""Versioned schema migrations of the PostgreSQL store, applied in order.

Migration N (1-based) is `MIGRATIONS[N - 1]`; `tether_schema.version` records the last applied.
The schema mirrors the SQLite one at its v7 (the same tables and columns, JSON kept as text so a
stored item reads back byte for byte), with PostgreSQL's own trigram index for search. Never
edit a released migration; append one.
"""

from __future__ import annotations

from tether_server.store.pg_migrations.v0001_initial import STATEMENTS as V0001
from tether_server.store.pg_migrations.v0002_leases import STATEMENTS as V0002

MIGRATIONS: tuple[tuple[str, ...], ...] = (V0001, V0002)
SCHEMA_VERSION = len(MIGRATIONS)
