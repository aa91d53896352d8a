"""Items are indexed for search after their commit, and a crash in between loses no index entry."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import textwrap
from pathlib import Path

from tests.unit.store.store_records import agent_item, thread, turn

from tether_server.store.base import Batch, ThreadQuery
from tether_server.store.sqlite import SqliteThreadStore


async def _search(store: SqliteThreadStore, term: str) -> list[str]:
    return [r.id for r in (await store.list_threads(ThreadQuery(search_term=term))).data]


def _answer(thread_id: str, text: str) -> Batch:
    return Batch(
        thread=thread(thread_id),
        turns=[turn(thread_id, 1)],
        items=[agent_item(thread_id, f"{thread_id}:turn1", 1, text)],
    )


def _indexed_texts(path: Path) -> list[str]:
    with sqlite3.connect(path) as db:
        return [row[0] for row in db.execute("SELECT text FROM search_docs WHERE item_id IS NOT NULL")]


async def test_an_answer_is_found_by_a_search_made_right_after_its_commit(tmp_path: Path) -> None:
    store = SqliteThreadStore(tmp_path / "tether.sqlite")
    await store.open()
    await store.commit(_answer("th1", "the answer mentions zanzibar"))
    assert await _search(store, "zanzibar") == ["th1"]
    await store.close()


# A daemon that dies right after committing an answer, before the index has caught up.
_CRASH_AFTER_COMMIT = textwrap.dedent(
    """
    import asyncio, os, sys
    from tests.unit.store.test_search_index import _answer
    from tether_server.store.sqlite import SqliteThreadStore

    async def main() -> None:
        store = SqliteThreadStore(__import__("pathlib").Path(sys.argv[1]))
        await store.open()
        await store.commit(_answer("th1", "written just before the crash: axolotl"))
        os._exit(0)

    asyncio.run(main())
    """
)


async def test_an_answer_written_just_before_a_crash_is_searchable_after_restart(tmp_path: Path) -> None:
    path = tmp_path / "tether.sqlite"
    root = Path(__file__).resolve().parents[3]
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _CRASH_AFTER_COMMIT, str(path), cwd=root
    )
    async with asyncio.timeout(60):
        assert await child.wait() == 0
    assert _indexed_texts(path) == []  # the crash came before the index caught up

    store = SqliteThreadStore(path)
    await store.open()
    assert _indexed_texts(path) == ["written just before the crash: axolotl"]
    assert await _search(store, "axolotl") == ["th1"]
    await store.close()
