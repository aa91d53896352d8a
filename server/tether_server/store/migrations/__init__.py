"""Versioned schema migrations, applied in order; `PRAGMA user_version` records the last one applied.

Migration N (1-based) is `MIGRATIONS[N - 1]`: a tuple of SQL statements run inside the single
transaction that also bumps `user_version` to N. Never edit a released migration; append one.
"""

from __future__ import annotations

from tether_server.store.migrations.v0001_initial import STATEMENTS as V0001
from tether_server.store.migrations.v0002_search import STATEMENTS as V0002
from tether_server.store.migrations.v0003_read_state import STATEMENTS as V0003
from tether_server.store.migrations.v0004_search_pending import STATEMENTS as V0004
from tether_server.store.migrations.v0005_goals import STATEMENTS as V0005
from tether_server.store.migrations.v0006_sections import STATEMENTS as V0006
from tether_server.store.migrations.v0007_desktop import STATEMENTS as V0007

MIGRATIONS: tuple[tuple[str, ...], ...] = (V0001, V0002, V0003, V0004, V0005, V0006, V0007)
SCHEMA_VERSION = len(MIGRATIONS)
