"""The broadcasts a fleet sends to every node's clients (docs/fleet.md, "News for every client")."""

from __future__ import annotations

from typing import Any

from tether_protocol import server_methods as sm
from tether_protocol.spec import NotificationSpec

# Changes of what every client of the fleet lists alike (one database): threads, sections,
# projects, attachments. Account, config, skills and MCP news stay on their node: each node has
# its own home. Read marks stay too (only experimental clients get them; not fanned out yet).
FLEET_WIDE: dict[str, NotificationSpec[Any]] = {
    spec.name: spec
    for spec in (
        sm.THREAD_STARTED,
        sm.THREAD_NAME_UPDATED,
        sm.THREAD_ARCHIVED,
        sm.THREAD_UNARCHIVED,
        sm.THREAD_DELETED,
        sm.THREAD_SECTION_CHANGED,
        sm.PROJECT_CHANGED,
        sm.THREAD_PROJECT_UPDATED,
        sm.THREAD_ATTACHMENT_UPDATED,
    )
}
