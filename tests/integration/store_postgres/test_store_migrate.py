"""`tether store migrate`: a real home goes SQLite → PostgreSQL → SQLite and reads the same.

The first copy to PostgreSQL is cut off halfway (the database refuses its first goal); run again,
it continues and ends verified.

The home is written by a daemon (turns against the fake model, a name, an archive, a thread with
no message) and by the store itself for what has no simpler way in here (a section, a goal, a read
mark, an attachment, queued messages, a project). Every read of the store port, and `thread/read`
on a daemon, answer the same on the copy of the copy as on the original.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest
from tests.conftest import StartServer
from tests.support.appserver import WAIT_S
from tests.support.rpcclient import RpcClient

from tether_server.store.base import Batch, StoreError, ThreadQuery, ThreadRecord
from tether_server.store.desktop import AttachmentRecord, QueuedRecord
from tether_server.store.migrate import MigratableStore, migrate
from tether_server.store.postgres import PostgresThreadStore
from tether_server.store.projects import ProjectRecord
from tether_server.store.sections import Membership, SectionRecord
from tether_server.store.sqlite import SqliteThreadStore
from tether_testing import script
from tether_testing.fake_responses import FakeResponsesServer


async def _tether(*args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tether_server", *args,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env=dict(os.environ),
    )  # fmt: skip
    async with asyncio.timeout(WAIT_S * 4):
        out, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def _turn(server: RpcClient, thread_id: str, text: str) -> None:
    mark = server.mark()
    await server.request("turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": text}]})
    await server.notification("turn/completed", after=mark)


async def _write_home(start_server: StartServer, home: Path, workdir: Path) -> list[str]:
    server = await start_server(home=home)
    ids = [(await server.request("thread/start", {"cwd": str(workdir)}))["thread"]["id"] for _ in range(3)]
    await _turn(server, ids[0], "first question")
    await _turn(server, ids[0], "second question")
    await server.request("thread/name/set", {"threadId": ids[0], "name": "named one"})
    await _turn(server, ids[1], "archived question")
    await server.request("thread/archive", {"threadId": ids[1]})
    assert await server.close() == 0
    store = SqliteThreadStore(home / "tether.sqlite")
    await store.open()
    try:
        await store.put_section(
            SectionRecord("0199aaaa-0000-7000-8000-000000000001", "Work", {"color": "red"})
        )
        await store.set_memberships(
            [
                Membership(ids[0], "0199aaaa-0000-7000-8000-000000000001", 1, 100),
                Membership("not-written-yet", "01984de2-8f74-7c91-a3b2-5c5e937cf318", 2, 101),
            ]
        )
        await store.put_goal(ids[0], {"threadId": ids[0], "objective": "finish", "status": "active"})
        await store.set_read_state(ids[1], {"turnId": "x"}, expected="0", revision="7")
        await store.add_attachment(AttachmentRecord("a1", ids[0], "file", "/tmp/x", {"path": "/tmp/x"}, 5))
        await store.save_queue(
            ids[0], [QueuedRecord("q1", "c1", [{"type": "text", "text": "later"}], {"k": "v"})]
        )
        await store.save_queue("not-written-yet", [QueuedRecord("q2", "c2", [], None)])
        await store.put_projects([ProjectRecord("p1", "Proj", ["/r"], {}, 0, 1, 2, "key")], [ids[1]], "p1")
    finally:
        await store.close()
    return ids


async def _everything(store: MigratableStore) -> dict[str, Any]:
    """Every read of the port, for every thread and every shared table."""
    ids = await store.thread_ids()
    threads = {}
    for tid in ids:
        threads[tid] = (
            await store.load_thread(tid),
            await store.read_events(tid, 0),
            await store.item_texts(tid),
            await store.get_goal(tid),
            await store.list_attachments(tid, None, 100),
        )
    queries = [
        ThreadQuery(),
        ThreadQuery(archived=True),
        ThreadQuery(search_term="QUESTION"),
        ThreadQuery(search_term="named"),
        ThreadQuery(sort_key="updated_at", sort_direction="asc"),
    ]
    return {
        "threads": threads,
        "lists": [[r.id for r in (await store.list_threads(q)).data] for q in queries],
        "read": await store.read_states(ids),
        "sections": await store.list_sections(None, 100),
        "members": await store.section_members(None),
        "queued": {t: await store.queued(t) for t in await store.queued_threads()},
        "projects": (await store.list_projects(), await store.thread_projects(ids)),
    }


def _store(path_or_url: str) -> MigratableStore:
    if path_or_url.startswith("postgresql"):
        return PostgresThreadStore(path_or_url)
    return SqliteThreadStore(Path(path_or_url))


async def _read_all(path_or_url: str) -> dict[str, Any]:
    store = _store(path_or_url)
    await store.open()
    try:
        return await _everything(store)
    finally:
        await store.close()


async def _ids(url: str) -> list[str]:
    store = PostgresThreadStore(url)
    await store.open()
    try:
        return await store.thread_ids()
    finally:
        await store.close()


async def _interrupted_copy(source: str, target_url: str) -> None:
    """A `tether store migrate` that the target database stops in the middle of the copy: it
    refuses the first goal (as a full disk or a dropped connection would), then accepts again."""
    await _ids(target_url)  # creates the schema, so the refusal can be set up beforehand
    async with await psycopg.AsyncConnection.connect(target_url, autocommit=True) as conn:
        await conn.execute(
            "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN RAISE EXCEPTION 'no space left for goals'; END $$"
        )
        await conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON goals EXECUTE FUNCTION refuse()")
        status, _, err = await _tether("store", "migrate", "--from", source, "--to", target_url)
        await conn.execute("DROP TRIGGER refuse ON goals")
        await conn.execute("DROP FUNCTION refuse()")
    assert status == 1, err
    assert "tether: store migrate failed: " in err and "no space left for goals" in err


async def _refused(source_path: Path, target: str, reason: str, rename: str | None = None) -> None:
    """`migrate` refuses `target` as not an unfinished copy of `source_path`, and changes nothing."""
    source, into = SqliteThreadStore(source_path), _store(target)
    await source.open()
    try:
        await into.open()
        if rename is not None:
            await into.set_name(rename, "renamed in the target", 1)
        else:
            record = ThreadRecord("0000-foreign", 1, 1, 1, "/w", "m", "p", preview="x")
            await source.commit(Batch(thread=record))
        before = await _everything(into)
        with pytest.raises(StoreError, match=re.escape(reason)):
            await migrate(source, into)
        assert await _everything(into) == before
    finally:
        await source.close()
        await into.close()


async def _wire_read(start_server: StartServer, home: Path, store_url: str, thread_id: str) -> dict[str, Any]:
    server = await start_server("--store", store_url, home=home)
    read: dict[str, Any] = await server.request("thread/read", {"threadId": thread_id, "includeTurns": True})
    listed: dict[str, Any] = await server.request("thread/list", {"searchTerm": "question"})
    assert await server.close() == 0
    return {"read": read, "list": listed}


async def test_a_home_round_trips_sqlite_postgres_sqlite_with_identical_reads(
    tmp_path: Path,
    start_server: StartServer,
    fake_model: FakeResponsesServer,
    workdir: Path,
    postgres_url: str,
) -> None:
    fake_model.add(*(script.text_reply(f"answer {i}") for i in range(3)))
    ids = await _write_home(start_server, tmp_path / "home", workdir)
    original = tmp_path / "home" / "tether.sqlite"
    before = await _wire_read(start_server, tmp_path / "view1", f"sqlite://{original}", ids[0])

    await _interrupted_copy(f"sqlite://{original}", postgres_url)
    assert await _ids(postgres_url) == [ids[0]]  # the first thread went over whole, then it stopped
    # Run again: the copy continues where it stopped and ends verified.
    status, out, err = await _tether(
        "store", "migrate", "--from", f"sqlite://{original}", "--to", postgres_url
    )
    assert status == 0, err
    # The daemon writes a thread at its first message (the third has none) and marks what it read.
    assert out.startswith("copied: threads 2, turns 3, items 6, history 10, events "), out
    assert "read marks 2, goals 1, attachments 1, sections 2, section members 2, queued 2, " in out
    assert "projects 1, project members 1, checksum " in out
    back = tmp_path / "back" / "tether.sqlite"
    status, out2, err = await _tether("store", "migrate", "--from", postgres_url, "--to", f"sqlite://{back}")
    assert status == 0, err
    assert out2 == out  # the same counts and the same checksum

    source = await _read_all(str(original))
    assert await _read_all(postgres_url) == source
    assert await _read_all(str(back)) == source
    assert await _wire_read(start_server, tmp_path / "view2", f"sqlite://{back}", ids[0]) == before

    # A target whose copy of a thread differs, or that holds threads the source does not, is
    # not an unfinished copy of this source: refused, and left as it was.
    await _refused(original, str(back), f"the target's thread {ids[0]} differs from the source's", ids[0])
    other = tmp_path / "other.sqlite"
    await _refused(other, postgres_url, "holds 2 thread(s) the source does not (first: ")


async def test_migrate_refuses_a_missing_source_and_a_bad_url(tmp_path: Path) -> None:
    status, _, err = await _tether("store", "migrate", "--from", f"sqlite://{tmp_path}/none.sqlite",
                                   "--to", f"sqlite://{tmp_path}/out.sqlite")  # fmt: skip
    assert status == 2
    assert "no such database file" in err
    assert not (tmp_path / "out.sqlite").exists()
    status, _, err = await _tether(
        "store", "migrate", "--from", "redis://x", "--to", f"sqlite://{tmp_path}/o.sqlite"
    )
    assert status == 2
    assert "configuration error: store: 'redis://x' is not a store URL" in err
