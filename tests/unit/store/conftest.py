"""Every behaviour test in this folder runs against every ThreadStore implementation."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tether_server.store.base import ThreadStore
from tether_server.store.memory import MemoryThreadStore
from tether_server.store.postgres import PostgresThreadStore
from tether_server.store.sqlite import SqliteThreadStore

# SQLite searches either scan a window of threads in page order or use the full-text index, whose
# matches are looked up first (fewer than the cap) or tested while walking the listed threads;
# the variants force each path (and their mix while paging) so all keep the same behaviour.
SQLITE_SEARCH_VARIANTS = {
    "sqlite": {},
    "sqlite-index-only": {"search_probe_window": 0},
    "sqlite-index-walk": {"search_probe_window": 0, "search_match_cap": 0},
    "sqlite-small-window": {"search_probe_window": 2},
}


@pytest.fixture(params=["memory", *SQLITE_SEARCH_VARIANTS, "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[ThreadStore]:
    chosen: ThreadStore = MemoryThreadStore()
    if request.param == "postgres":
        chosen = PostgresThreadStore(request.getfixturevalue("postgres_url"))
    elif request.param in SQLITE_SEARCH_VARIANTS:
        chosen = SqliteThreadStore(tmp_path / "tether.db", **SQLITE_SEARCH_VARIANTS[request.param])
    await chosen.open()
    yield chosen
    await chosen.close()
