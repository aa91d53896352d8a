"""Projects in the store: the record, the port, and the in-memory twin of the SQLite tables.

A project's `position` orders `project/list`; a thread belongs to at most one project. Projects
are a user's handful, so the store hands them out whole and the processor sorts and pages them.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class ProjectRecord:
    id: str
    name: str
    roots: list[str]
    metadata: dict[str, str]
    position: int
    created_at: int
    updated_at: int
    idempotency_key: str | None = None


class ProjectStore(Protocol):
    async def list_projects(self) -> list[ProjectRecord]:
        """Every project, in (position, id) order."""
        ...

    async def get_project(self, project_id: str) -> ProjectRecord | None: ...

    async def project_by_key(self, idempotency_key: str) -> ProjectRecord | None: ...

    async def put_projects(
        self, projects: Sequence[ProjectRecord], members: Sequence[str] = (), project_id: str | None = None
    ) -> None:
        """Insert or replace these projects and put the `members` threads in `project_id` (None:
        in no project), in one transaction."""
        ...

    async def delete_project(self, project_id: str) -> list[str]:
        """Delete the project; the threads it held (now in no project)."""
        ...

    async def thread_projects(self, thread_ids: Sequence[str]) -> dict[str, str]:
        """The project of each of these threads that has one."""
        ...

    async def project_members(self, project_id: str | None) -> list[str]:
        """The threads in the project (None: in any project), by id."""
        ...

    async def project_recency(self, project_ids: Sequence[str]) -> dict[str, int]:
        """Each project's newest unarchived, written member thread's `recency_at` (absent: none)."""
        ...


class _Record(Protocol):
    @property
    def archived(self) -> bool: ...

    @property
    def recency_at(self) -> int: ...


class _Host(Protocol):
    @property
    def _projects(self) -> _Tables: ...

    async def get_thread(self, thread_id: str) -> Any: ...


@dataclass
class _Tables:
    projects: dict[str, ProjectRecord] = field(default_factory=dict)
    members: dict[str, str] = field(default_factory=dict)  # thread id -> project id


class MemoryProjects:
    """The same behaviour as `SqliteProjects`, in dicts; `drop_thread_project` is its half of
    deleting a thread."""

    _project_tables: _Tables | None = None

    @property
    def _projects(self) -> _Tables:
        if self._project_tables is None:
            self._project_tables = _Tables()
        return self._project_tables

    def drop_thread_project(self, thread_id: str) -> None:
        self._projects.members.pop(thread_id, None)

    async def list_projects(self) -> list[ProjectRecord]:
        return copy.deepcopy(sorted(self._projects.projects.values(), key=lambda p: (p.position, p.id)))

    async def get_project(self, project_id: str) -> ProjectRecord | None:
        return copy.deepcopy(self._projects.projects.get(project_id))

    async def project_by_key(self, idempotency_key: str) -> ProjectRecord | None:
        found = [p for p in self._projects.projects.values() if p.idempotency_key == idempotency_key]
        return copy.deepcopy(found[0]) if found else None

    async def put_projects(
        self, projects: Sequence[ProjectRecord], members: Sequence[str] = (), project_id: str | None = None
    ) -> None:
        tables = self._projects
        for project in projects:
            tables.projects[project.id] = copy.deepcopy(project)
        for thread_id in members:
            if project_id is None:
                tables.members.pop(thread_id, None)
            else:
                tables.members[thread_id] = project_id

    async def delete_project(self, project_id: str) -> list[str]:
        tables = self._projects
        tables.projects.pop(project_id, None)
        held = sorted(t for t, p in tables.members.items() if p == project_id)
        for thread_id in held:
            del tables.members[thread_id]
        return held

    async def thread_projects(self, thread_ids: Sequence[str]) -> dict[str, str]:
        members = self._projects.members
        return {t: members[t] for t in thread_ids if t in members}

    async def project_members(self, project_id: str | None) -> list[str]:
        members = self._projects.members
        return sorted(t for t, p in members.items() if project_id is None or p == project_id)

    async def project_recency(self: _Host, project_ids: Sequence[str]) -> dict[str, int]:
        newest: dict[str, int] = {}
        for thread_id, project_id in self._projects.members.items():
            if project_id not in project_ids:
                continue
            record: _Record | None = await self.get_thread(thread_id)
            if record is not None and not record.archived:
                newest[project_id] = max(newest.get(project_id, record.recency_at), record.recency_at)
        return newest
