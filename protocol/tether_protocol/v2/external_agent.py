"""`externalAgentConfig/*`: what another coding agent's config holds, brought over, with a history."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tether_protocol.common import JsonValue, WireModel

MigrationItemType = Literal[
    "AGENTS_MD", "CONFIG", "SKILLS", "PLUGINS", "MCP_SERVER_CONFIG",
    "SUBAGENTS", "HOOKS", "COMMANDS", "MEMORY", "SESSIONS",
]  # fmt: skip


class Named(WireModel):
    """One skill, MCP server, hook, sub-agent or command of a migration item."""

    name: str


class MigrationDetails(WireModel):
    """What one migration item covers, by kind."""

    plugins: list[JsonValue] = Field(default_factory=list)
    skills: list[Named] = Field(default_factory=list)
    sessions: list[JsonValue] = Field(default_factory=list)
    mcp_servers: list[Named] = Field(default_factory=list)
    hooks: list[Named] = Field(default_factory=list)
    subagents: list[Named] = Field(default_factory=list)
    commands: list[Named] = Field(default_factory=list)


class MigrationItem(WireModel):
    """One thing to import: home-scoped when `cwd` is null or empty, else repository-scoped."""

    item_type: MigrationItemType
    description: str
    cwd: str | None = None
    details: MigrationDetails | None = None


class ExternalAgentConfigDetectParams(WireModel):
    """`externalAgentConfig/detect` params."""

    include_home: bool = False
    cwds: list[str] | None = None
    max_session_age_days: int | None = Field(default=None, ge=0, le=2**32 - 1)
    max_sessions: int | None = Field(default=None, ge=0, le=2**32 - 1)
    migration_source: str | None = None
    source: str | None = None


class ExternalAgentConfigDetectResponse(WireModel):
    """`externalAgentConfig/detect` result."""

    items: list[MigrationItem]
    connectors: list[JsonValue] = Field(default_factory=list)


class ExternalAgentConfigImportParams(WireModel):
    """`externalAgentConfig/import` params."""

    migration_items: list[MigrationItem]
    migration_source: str | None = None
    provider_id: str | None = None
    source: str | None = None


class ImportId(WireModel):
    """The id of an import (the result of `import` and `import/recordHistory`)."""

    import_id: str


class ImportSuccess(WireModel):
    """One thing imported."""

    item_type: MigrationItemType
    cwd: str | None = None
    source: str | None = None
    target: str | None = None
    title: str | None = None


class ImportFailure(WireModel):
    """One thing that could not be imported, and why."""

    item_type: MigrationItemType
    error_type: str | None = None
    sub_error_type: str | None = None
    failure_stage: str
    message: str
    cwd: str | None = None
    source: str | None = None


class ImportTypeResult(WireModel):
    """The outcome of the items of one type."""

    item_type: MigrationItemType
    successes: list[ImportSuccess] = Field(default_factory=list)
    failures: list[ImportFailure] = Field(default_factory=list)


class ExternalAgentConfigImportNotification(WireModel):
    """`externalAgentConfig/import/progress` (one item) and `…/completed` (all, by type)."""

    import_id: str
    item_type_results: list[ImportTypeResult]


class ExternalAgentConfigImportProgressNotification(ExternalAgentConfigImportNotification):
    """`externalAgentConfig/import/progress`: one item imported (or not)."""


class ExternalAgentConfigImportCompletedNotification(ExternalAgentConfigImportNotification):
    """`externalAgentConfig/import/completed`: every item's outcome, grouped by type."""


class ExternalAgentConfigImportHistoryRecordParams(WireModel):
    """`externalAgentConfig/import/recordHistory` params: an import done elsewhere."""

    provider_id: str
    item_type_results: list[ImportTypeResult]


class ImportHistory(WireModel):
    """One finished import."""

    import_id: str
    provider_id: str | None = None
    completed_at_ms: int
    successes: list[ImportSuccess]
    failures: list[ImportFailure]


class ExternalAgentConfigImportHistoriesReadResponse(WireModel):
    """`externalAgentConfig/import/readHistories` result: newest first."""

    data: list[ImportHistory]
    connectors: list[JsonValue] = Field(default_factory=list)
