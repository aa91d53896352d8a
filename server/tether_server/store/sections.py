"""Thread sections in the store: the records, the port, and the in-memory twin of the SQLite tables.

A section is ordered by its id (UUIDv7, so creation order; the built-in "Pinned" id sorts first).
A thread sits in at most one section, at an integer position (ascending = the section's order).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

PINNED_SECTION_ID = "01984de2-8f74-7c91-a3b2-5c5e937cf318"
PINNED_SECTION_NAME = "Pinned"


@dataclass(frozen=True)
class SectionRecord:
    id: str
    name: str
    appearance: dict[str, Any] | None = None  # wire ThreadSectionAppearance JSON


@dataclass(frozen=True)
class Membership:
    thread_id: str
    section_id: str
    position: int
    entered_at: int  # unix seconds


class SectionStore(Protocol):
    async def list_sections(self, after: str | None, limit: int) -> list[SectionRecord]:
        """Sections with an id greater than `after`, in id order, at most `limit`."""
        ...

    async def get_section(self, section_id: str) -> SectionRecord | None: ...

    async def put_section(self, section: SectionRecord) -> None:
        """Insert or replace the section with that id."""
        ...

    async def delete_section(self, section_id: str) -> bool:
        """Remove the section and its memberships (its threads become unsectioned)."""
        ...

    async def memberships(self, thread_ids: Sequence[str]) -> dict[str, Membership]: ...

    async def section_members(self, section_id: str | None) -> list[Membership]:
        """Members of one section in position order; None: every membership."""
        ...

    async def set_memberships(self, put: Sequence[Membership], remove: Sequence[str] = ()) -> None:
        """Write these memberships and drop those of `remove`, in one transaction."""
        ...


def _pinned() -> dict[str, SectionRecord]:
    return {PINNED_SECTION_ID: SectionRecord(PINNED_SECTION_ID, PINNED_SECTION_NAME)}


@dataclass
class _Tables:
    sections: dict[str, SectionRecord] = field(default_factory=_pinned)
    members: dict[str, Membership] = field(default_factory=dict)


class MemorySections:
    """Mixed into `MemoryThreadStore`: the same behaviour as `SqliteSections`, in dicts."""

    _section_tables: _Tables | None = None

    @property
    def _tables(self) -> _Tables:
        if self._section_tables is None:
            self._section_tables = _Tables()
        return self._section_tables

    async def list_sections(self, after: str | None, limit: int) -> list[SectionRecord]:
        ids = sorted(i for i in self._tables.sections if after is None or i > after)
        return [copy.deepcopy(self._tables.sections[i]) for i in ids[:limit]]

    async def get_section(self, section_id: str) -> SectionRecord | None:
        return copy.deepcopy(self._tables.sections.get(section_id))

    async def put_section(self, section: SectionRecord) -> None:
        self._tables.sections[section.id] = replace(section, appearance=copy.deepcopy(section.appearance))

    async def delete_section(self, section_id: str) -> bool:
        tables = self._tables
        if tables.sections.pop(section_id, None) is None:
            return False
        tables.members = {t: m for t, m in tables.members.items() if m.section_id != section_id}
        return True

    async def memberships(self, thread_ids: Sequence[str]) -> dict[str, Membership]:
        members = self._tables.members
        return {t: members[t] for t in thread_ids if t in members}

    async def section_members(self, section_id: str | None) -> list[Membership]:
        found = [m for m in self._tables.members.values() if section_id is None or m.section_id == section_id]
        return sorted(found, key=lambda m: (m.position, m.thread_id))

    async def set_memberships(self, put: Sequence[Membership], remove: Sequence[str] = ()) -> None:
        members = self._tables.members
        for thread_id in remove:
            members.pop(thread_id, None)
        for membership in put:
            members[membership.thread_id] = membership
