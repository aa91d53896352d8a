"""Projects (`project/*`, experimental): named groups of threads with their root folders."""

from __future__ import annotations

from typing import Literal

from tether_protocol.common import WireModel


class ProjectRoot(WireModel):
    """A project's root folder (an absolute path)."""

    path: str


class Project(WireModel):
    """A project; `recencyAt` is its newest unarchived thread's recency (null: none)."""

    id: str
    name: str
    roots: list[ProjectRoot]
    metadata: dict[str, str]
    position: int
    created_at: int
    updated_at: int
    recency_at: int | None = None


class ProjectListParams(WireModel):
    """`project/list` params: `sortDirection` needs `sortKey`."""

    cursor: str | None = None
    limit: int | None = None
    sort_key: Literal["position", "recencyAt"] | None = None
    sort_direction: Literal["asc", "desc"] | None = None


class ProjectListResponse(WireModel):
    """`project/list` result."""

    data: list[Project]
    next_cursor: str | None = None


class ProjectReadParams(WireModel):
    """`project/read` params."""

    project_id: str


class ProjectReadResponse(WireModel):
    """`project/read` result."""

    project: Project


class ProjectCreateParams(WireModel):
    """`project/create` params: a repeated `idempotencyKey` answers the project it made."""

    idempotency_key: str
    name: str
    roots: list[ProjectRoot]
    metadata: dict[str, str] | None = None


class ProjectCreateResponse(WireModel):
    """`project/create` result."""

    project: Project


class ProjectImportParams(WireModel):
    """`project/import` params: a project made with these threads in it."""

    idempotency_key: str
    name: str
    roots: list[ProjectRoot]
    metadata: dict[str, str] | None = None
    threads: list[str] | None = None


class ProjectImportResponse(WireModel):
    """`project/import` result."""

    project: Project


class ProjectUpdateParams(WireModel):
    """`project/update` params: each field given replaces the project's."""

    project_id: str
    name: str | None = None
    roots: list[ProjectRoot] | None = None
    metadata: dict[str, str] | None = None


class ProjectUpdateResponse(WireModel):
    """`project/update` result."""

    project: Project


class ProjectMoveParams(WireModel):
    """`project/move` params: before another project, or last."""

    project_id: str
    before_project_id: str | None = None


class ProjectMoveResponse(WireModel):
    """`project/move` result."""


class ProjectDeleteParams(WireModel):
    """`project/delete` params."""

    project_id: str


class ProjectDeleteResponse(WireModel):
    """`project/delete` result."""


class ProjectChangedNotification(WireModel):
    """`project/changed`: a project was created, updated (moved too) or deleted."""

    project_id: str
    change_type: Literal["created", "updated", "deleted"]


class ThreadProjectUpdatedNotification(WireModel):
    """`thread/project/updated`: a thread joined a project, or left one (null)."""

    thread_id: str
    project_id: str | None = None
