"""`tether store migrate`: copy everything one store holds into another, and verify.

Everything goes through the ThreadStore port, so the target indexes and checks what it receives
as it does for a daemon: each thread in one `commit` (record, turns, items, model history and
every event, `last_seq` included), then its read mark, goal and attachments; then sections and
memberships, queued messages and projects (which may name threads not written yet). The counts
and a checksum of every thread's contents, on both sides, are compared at the end; any
difference is an error.

The target is empty, or a copy of this source that an earlier run left unfinished: each thread's
contents went over in one commit, so a thread the target holds is whole. Such a thread is left as
it is when its contents match the source's (then its read mark, goal and attachments are brought
up to date) and refused when they differ; a target holding a thread the source does not is
refused. Every later write is an upsert, so running again continues where the copy stopped.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import asdict, dataclass, fields
from typing import Protocol

import orjson

from tether_server.store.base import Batch, EventRecord, LoadedThread, StoreError, ThreadStore
from tether_server.store.desktop import AttachmentRecord
from tether_server.store.sections import SectionRecord

_PAGE = 500


class MigratableStore(ThreadStore, Protocol):
    async def thread_ids(self) -> list[str]: ...


@dataclass
class Counts:
    threads: int = 0
    turns: int = 0
    items: int = 0
    history: int = 0
    events: int = 0
    read_marks: int = 0
    goals: int = 0
    attachments: int = 0
    sections: int = 0
    section_members: int = 0
    queued: int = 0
    projects: int = 0
    project_members: int = 0
    checksum: str = ""  # SHA-256 of every thread's record, turns, items, history and events

    def render(self) -> str:
        return ", ".join(f"{f.name.replace('_', ' ')} {getattr(self, f.name)}" for f in fields(self))


async def migrate(source: MigratableStore, target: MigratableStore) -> Counts:
    """Copy `source` into `target` (empty, or an unfinished copy of it); the verified counts.

    Raises:
        StoreError: the target holds other threads, a write is refused, or the counts differ.
    """
    present = set(await target.thread_ids())
    wanted = await source.thread_ids()
    foreign = sorted(present - set(wanted))
    if foreign:
        raise StoreError(
            f"the target store holds {len(foreign)} thread(s) the source does not (first: "
            f"{foreign[0]}); migrate into an empty store, or into an unfinished copy of this source"
        )
    for thread_id in wanted:
        await _copy_thread(source, target, thread_id, resume=thread_id in present)
    await _copy_shared(source, target)
    copied, expected = await count(target), await count(source)
    if copied != expected:
        raise StoreError(
            f"the copy differs from the source: source {expected.render()}; target {copied.render()}"
        )
    return copied


async def _copy_thread(
    source: MigratableStore, target: MigratableStore, thread_id: str, *, resume: bool
) -> None:
    loaded = await source.load_thread(thread_id)
    if loaded is None:  # deleted while we copied
        return
    events = await _all_events(source, thread_id)
    if not resume:
        await target.commit(Batch(loaded.record, loaded.turns, loaded.items, loaded.history, events))
    elif await _contents(target, thread_id) != _serialise(loaded, events):
        raise StoreError(
            f"the target's thread {thread_id} differs from the source's: the target is not an "
            f"unfinished copy of this source"
        )
    state = (await source.read_states([thread_id])).get(thread_id)
    copied = (await target.read_states([thread_id])).get(thread_id)
    if state is not None and state.revision != "0" and copied != state:
        expected = copied.revision if copied is not None else "0"
        await target.set_read_state(thread_id, state.first_unread, expected=expected, revision=state.revision)
    goal = await source.get_goal(thread_id)
    if goal is not None and await target.get_goal(thread_id) != goal:
        await target.put_goal(thread_id, goal)
    for attachment in await _attachments(source, thread_id):
        await target.add_attachment(attachment)  # a no-op for one the earlier run added


async def _all_events(store: ThreadStore, thread_id: str) -> list[EventRecord]:
    events: list[EventRecord] = []
    after = 0
    while page := await store.read_events(thread_id, after, _PAGE):
        events.extend(page)
        after = page[-1].seq
    return events


async def _attachments(store: ThreadStore, thread_id: str) -> list[AttachmentRecord]:
    found: list[AttachmentRecord] = []
    while page := await store.list_attachments(
        thread_id, (found[-1].created_at, found[-1].id) if found else None, _PAGE
    ):
        found.extend(page)
    return found


async def _sections(store: ThreadStore) -> list[SectionRecord]:
    found: list[SectionRecord] = []
    while page := await store.list_sections(found[-1].id if found else None, _PAGE):
        found.extend(page)
    return found


async def _copy_shared(source: MigratableStore, target: MigratableStore) -> None:
    for section in await _sections(source):
        await target.put_section(section)
    await target.set_memberships(await source.section_members(None))
    for thread_id in await source.queued_threads():
        await target.save_queue(thread_id, await source.queued(thread_id))
    await target.put_projects(await source.list_projects())
    members = await source.thread_projects(await source.project_members(None))
    by_project: dict[str, list[str]] = defaultdict(list)
    for thread_id, project_id in members.items():
        by_project[project_id].append(thread_id)
    for project_id, thread_ids in sorted(by_project.items()):
        await target.put_projects([], thread_ids, project_id)


async def count(store: MigratableStore) -> Counts:
    """What `store` holds, counted through the port (as a daemon would read it)."""
    counts = Counts()
    ids = await store.thread_ids()
    counts.threads = len(ids)
    digest = hashlib.sha256()
    for thread_id in ids:
        loaded = await store.load_thread(thread_id)
        if loaded is None:
            continue
        events = await _all_events(store, thread_id)
        digest.update(_serialise(loaded, events))
        counts.turns += len(loaded.turns)
        counts.items += len(loaded.items)
        counts.history += len(loaded.history)
        counts.events += len(events)
        counts.goals += (await store.get_goal(thread_id)) is not None
        counts.attachments += len(await _attachments(store, thread_id))
    states = await store.read_states(ids)
    counts.read_marks = sum(1 for s in states.values() if s.revision != "0")
    counts.sections = len(await _sections(store))
    counts.section_members = len(await store.section_members(None))
    counts.queued = sum([len(await store.queued(t)) for t in await store.queued_threads()])
    counts.projects = len(await store.list_projects())
    counts.project_members = len(await store.project_members(None))
    counts.checksum = digest.hexdigest()
    return counts


def _serialise(loaded: LoadedThread, events: list[EventRecord]) -> bytes:
    """A thread's contents as the checksum covers them: record, turns, items, history, events."""
    return orjson.dumps([asdict(loaded), [asdict(e) for e in events]], option=orjson.OPT_SORT_KEYS)


async def _contents(store: ThreadStore, thread_id: str) -> bytes | None:
    loaded = await store.load_thread(thread_id)
    return None if loaded is None else _serialise(loaded, await _all_events(store, thread_id))
