"""Per-thread read markers: compare-and-set on the revision, kept across reopen, gone with the thread."""

from __future__ import annotations

from pathlib import Path

from tests.unit.store.store_records import commit_threads, thread

from tether_server.store.base import ReadState, ThreadStore
from tether_server.store.sqlite import SqliteThreadStore

UNREAD = {"type": "turn", "turnId": "t-1"}


async def test_a_thread_starts_read_and_unknown_threads_have_no_marker(store: ThreadStore) -> None:
    await commit_threads(store, [thread("a")])
    assert await store.read_states(["a", "missing"]) == {"a": ReadState(None, "0")}
    assert await store.set_read_state("missing", None, expected="0", revision="r1") is None


async def test_a_write_needs_the_current_revision(store: ThreadStore) -> None:
    await commit_threads(store, [thread("a"), thread("b", created=101)])
    assert await store.set_read_state("a", UNREAD, expected="0", revision="r1") == ReadState(UNREAD, "r1")
    stale = await store.set_read_state("a", None, expected="0", revision="r2")
    assert stale == ReadState(UNREAD, "r1")
    assert await store.set_read_state("a", None, expected="r1", revision="r3") == ReadState(None, "r3")
    assert await store.read_states(["a", "b"]) == {"a": ReadState(None, "r3"), "b": ReadState(None, "0")}
    assert await store.delete_thread("a")
    assert await store.read_states(["a"]) == {}


async def test_markers_survive_a_reopen(tmp_path: Path) -> None:
    path = tmp_path / "tether.db"
    first = SqliteThreadStore(path)
    await first.open()
    await commit_threads(first, [thread("a")])
    await first.set_read_state("a", {"type": "threadStart"}, expected="0", revision="r1")
    await first.close()
    again = SqliteThreadStore(path)
    await again.open()
    assert await again.read_states(["a"]) == {"a": ReadState({"type": "threadStart"}, "r1")}
    await again.close()
