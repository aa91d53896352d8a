"""The SQLite store on disk: durability, crash safety, migrations and refusing unusable files."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import sys
from pathlib import Path

import pytest
from tests.unit.store.store_records import conversation, thread

from tether_server.store.base import Batch, StoreError, ThreadQuery, ThreadStore
from tether_server.store.cursors import Position
from tether_server.store.migrations import MIGRATIONS, SCHEMA_VERSION
from tether_server.store.sqlite import SqliteThreadStore
from tether_server.store.sqlite_queries import list_threads_sql

CHILD = """
import asyncio, sys
from pathlib import Path
from tether_server.store.cursors import Position
from tether_server.store.base import Batch, EventRecord, ThreadRecord
from tether_server.store.sqlite import SqliteThreadStore
from tether_server import log

async def main() -> None:
    log.configure()
    store = SqliteThreadStore(Path(sys.argv[1]))
    await store.open()
    for n in range(20):
        record = ThreadRecord(f"t{n}", n, n, n, "/p", "m", "openai", preview=f"question {n}")
        await store.commit(Batch(thread=record, events=[EventRecord(f"t{n}", 1, "turn/started", {}, 0)]))
    print("committed", flush=True)
    sys.stdin.readline()  # hold the database open (nothing checkpointed) until killed

asyncio.run(main())
"""


def build_v1_database(path: Path) -> None:
    """A database as the first schema left it, with one conversation in it."""
    conn = sqlite3.connect(path)
    for statement in MIGRATIONS[0]:
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    conn.execute(
        "INSERT INTO threads (id, created_at, updated_at, recency_at, cwd, model, model_provider, source,"
        " preview, name) VALUES ('old', 1, 2, 3, '/p', 'm', 'openai', 'vscode', 'hello there', 'Fruit')"
    )
    conn.execute("INSERT INTO turns (thread_id, turn_id, ordinal, status) VALUES ('old', 'tu', 0, 'done')")
    for item_id, ordinal, item in [
        ("u", 0, '{"type":"userMessage","id":"u","content":[{"type":"text","text":"tell me about kiwis"}]}'),
        ("a", 1, '{"type":"agentMessage","id":"a","text":"Kumquats are small citrus fruits"}'),
    ]:
        conn.execute(
            "INSERT INTO items (thread_id, item_id, turn_id, ordinal, item) VALUES ('old', ?, 'tu', ?, ?)",
            (item_id, ordinal, item),
        )
    conn.commit()
    conn.close()


def set_user_version(path: Path, version: int) -> None:
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()


async def search(store: ThreadStore, term: str) -> list[str]:
    return [r.id for r in (await store.list_threads(ThreadQuery(search_term=term))).data]


async def test_data_survives_closing_and_reopening_the_file(tmp_path: Path) -> None:
    path = tmp_path / "home" / "tether.db"
    first = SqliteThreadStore(path)
    await first.open()
    await first.commit(conversation("th1", turns=2))
    await first.close()

    again = SqliteThreadStore(path)
    await again.open()
    loaded = await again.load_thread("th1")
    events = await again.read_events("th1", 0)
    await again.close()

    assert loaded is not None
    assert [t.turn_id for t in loaded.turns] == ["th1:turn0", "th1:turn1"]
    assert len(events) == 4


async def test_commits_survive_the_process_being_killed(tmp_path: Path) -> None:
    path = tmp_path / "tether.db"
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", CHILD, str(path),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    assert child.stdout is not None
    async with asyncio.timeout(30):
        line = await child.stdout.readline()
    assert line == b"committed\n"
    assert Path(f"{path}-wal").stat().st_size > 0
    child.send_signal(signal.SIGKILL)
    async with asyncio.timeout(30):
        assert await child.wait() == -signal.SIGKILL

    store = SqliteThreadStore(path)
    await store.open()
    page = await store.list_threads(ThreadQuery(limit=100))
    record = await store.get_thread("t19")
    await store.close()

    assert len(page.data) == 20
    assert record is not None
    assert record.last_seq == 1


async def test_a_first_schema_database_is_upgraded_with_its_data(tmp_path: Path) -> None:
    path = tmp_path / "tether.db"
    build_v1_database(path)

    store = SqliteThreadStore(path)
    await store.open()
    loaded = await store.load_thread("old")
    found = [await search(store, term) for term in ("kumquat", "KIWIS", "fruit", "hello")]
    await store.commit(Batch(thread=thread("new", preview="fresh kumquat question")))
    after = await search(store, "kumquat")
    await store.close()

    assert loaded is not None
    assert [i.item_id for i in loaded.items] == ["u", "a"]
    assert found == [["old"], ["old"], ["old"], ["old"]]
    assert after == ["new", "old"]
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)


async def test_a_database_from_a_newer_tether_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "tether.db"
    store = SqliteThreadStore(path)
    await store.open()
    await store.close()
    set_user_version(path, SCHEMA_VERSION + 5)

    with pytest.raises(StoreError) as caught:
        await SqliteThreadStore(path).open()

    assert str(caught.value) == (
        f"database {path} was created by a newer Tether (schema v{SCHEMA_VERSION + 5}); "
        f"this version knows up to v{SCHEMA_VERSION}"
    )


async def test_a_file_that_is_not_a_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "tether.db"
    garbage = b"this is certainly not a SQLite database\n" * 200
    path.write_bytes(garbage)

    with pytest.raises(StoreError, match="corrupt or not a SQLite database") as caught:
        await SqliteThreadStore(path).open()

    assert str(path) in str(caught.value)
    assert path.read_bytes() == garbage


async def test_a_database_locked_by_another_process_is_refused_with_its_name(tmp_path: Path) -> None:
    path = tmp_path / "tether.db"
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        holder.execute("CREATE TABLE held (x)")
        with pytest.raises(StoreError, match="is locked by another process") as caught:
            await SqliteThreadStore(path, busy_timeout_ms=50).open()
    finally:
        holder.close()

    assert str(path) in str(caught.value)


async def test_a_directory_in_place_of_the_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a directory"):
        await SqliteThreadStore(tmp_path).open()


async def test_using_a_store_before_opening_it_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is not open"):
        await SqliteThreadStore(tmp_path / "tether.db").get_thread("x")


@pytest.mark.parametrize("sort_key", ["created_at", "updated_at", "recency_at"])
@pytest.mark.parametrize("direction", ["asc", "desc"])
async def test_thread_pages_are_read_from_an_index_without_sorting(
    tmp_path: Path, sort_key: str, direction: str
) -> None:
    path = tmp_path / "tether.db"
    store = SqliteThreadStore(path)
    await store.open()
    await store.close()
    query = ThreadQuery(sort_key=sort_key, sort_direction=direction)  # type: ignore[arg-type]
    sql, params = list_threads_sql(query, Position(1_796_000_000, "some-id"), None, 51)

    with sqlite3.connect(path) as conn:
        plan = " | ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params))

    assert f"USING INDEX threads_by_{sort_key.removesuffix('_at')}" in plan
    assert "TEMP B-TREE" not in plan
