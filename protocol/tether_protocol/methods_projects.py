"""The method table's projects (`project/*`, experimental).
`methods.CLIENT_METHODS` takes every spec of this module too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether_protocol.lazy_models import models
from tether_protocol.spec import MethodSpec

# The models load on first use (lazy_models); mypy reads the real modules.
if TYPE_CHECKING:
    from tether_protocol.v2 import project as pj
else:
    pj = models("tether_protocol.v2.project")

PROJECT_LIST = MethodSpec(
    "project/list",
    pj.ProjectListParams,
    pj.ProjectListResponse,
    experimental=True,
    doc="Projects by position (or by recency), paged.",
)
PROJECT_READ = MethodSpec(
    "project/read", pj.ProjectReadParams, pj.ProjectReadResponse, experimental=True, doc="One project."
)
PROJECT_CREATE = MethodSpec(
    "project/create",
    pj.ProjectCreateParams,
    pj.ProjectCreateResponse,
    experimental=True,
    doc="Create a project (once per idempotency key).",
)
PROJECT_IMPORT = MethodSpec(
    "project/import",
    pj.ProjectImportParams,
    pj.ProjectImportResponse,
    experimental=True,
    doc="Create a project holding existing threads.",
)
PROJECT_UPDATE = MethodSpec(
    "project/update",
    pj.ProjectUpdateParams,
    pj.ProjectUpdateResponse,
    experimental=True,
    doc="Rename a project, or replace its roots or metadata.",
)
PROJECT_MOVE = MethodSpec(
    "project/move",
    pj.ProjectMoveParams,
    pj.ProjectMoveResponse,
    experimental=True,
    doc="Move a project before another one, or last.",
)
PROJECT_DELETE = MethodSpec(
    "project/delete",
    pj.ProjectDeleteParams,
    pj.ProjectDeleteResponse,
    experimental=True,
    doc="Delete a project; its threads belong to none.",
)
