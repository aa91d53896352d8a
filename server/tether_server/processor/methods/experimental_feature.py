"""`experimentalFeature/list`, `experimentalFeature/enablement/set`, `permissionProfile/list`.

The feature list is Codex 0.169.0's catalogue (config/features.py) with each flag's state from
the config's `[features]` table and runtime enablement (the config wins, as in Codex).
Enablement is process-wide and kept in memory only, as Codex keeps it: nothing is written, and a
restart forgets it. Both lists page by offset, with Codex's cursor wording.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TypeVar

from tether_protocol.v2 import experimental_feature as xf
from tether_server.config.features import CATALOGUE, RUNTIME_TOGGLEABLE, enabled
from tether_server.config.requirements import load_requirements
from tether_server.errors import InvalidRequest, NotFound
from tether_server.log import get
from tether_server.processor.state import ServerState
from tether_server.processor.uuid_text import check_thread_id
from tether_server.rpc.context import RequestContext

_log = get(__name__)

T = TypeVar("T")

# The built-in profiles; Tether honours no `[permissions]` tables of its own.
_PROFILES = (":read-only", ":workspace", ":danger-full-access")
_PROFILE_MODES = {
    ":read-only": "read-only",
    ":workspace": "workspace-write",
    ":danger-full-access": "danger-full-access",
}


def page(items: Sequence[T], cursor: str | None, limit: int | None, what: str) -> tuple[list[T], str | None]:
    """The items from offset `cursor`, at most `limit` (at least one), and the next cursor."""
    start = 0
    if cursor is not None:
        if not cursor.isdigit():
            raise InvalidRequest(f"invalid cursor: {cursor}")
        start = int(cursor)
        if start > len(items):
            raise InvalidRequest(f"cursor {start} exceeds total {what} {len(items)}")
    end = len(items) if limit is None else min(len(items), start + max(limit, 1))
    return list(items[start:end]), (str(end) if end < len(items) else None)


async def feature_list(
    state: ServerState, ctx: RequestContext, params: xf.ExperimentalFeatureListParams
) -> xf.ExperimentalFeatureListResponse:
    if params.thread_id is not None:
        check_thread_id(params.thread_id)
        # A thread's features come from the same config as the daemon's: only its presence matters.
        if state.threads.get(params.thread_id) is None:
            raise NotFound(f"thread not found: {params.thread_id}")
    configured = state.config.config.features
    features = [
        xf.ExperimentalFeature(
            name=f.name,
            stage=f.stage,
            display_name=f.display_name,
            description=f.description,
            announcement=f.announcement,
            enabled=enabled(f, configured, state.feature_enablement),
            default_enabled=f.default_enabled,
        )
        for f in CATALOGUE
    ]
    data, next_cursor = page(features, params.cursor, params.limit, "feature flags")
    return xf.ExperimentalFeatureListResponse(data=data, next_cursor=next_cursor)


async def enablement_set(
    state: ServerState, ctx: RequestContext, params: xf.ExperimentalFeatureEnablementSetParams
) -> xf.ExperimentalFeatureEnablementSetResponse:
    """Apply the runtime-toggleable entries; the others are ignored with a warning, as Codex does."""
    applied = {name: on for name, on in sorted(params.enablement.items()) if name in RUNTIME_TOGGLEABLE}
    ignored = sorted(set(params.enablement) - set(applied))
    if ignored:
        _log.warning("ignoring invalid experimental feature enablement keys", keys=ignored)
    state.feature_enablement.update(applied)
    return xf.ExperimentalFeatureEnablementSetResponse(enablement=applied)


async def permission_profile_list(
    state: ServerState, ctx: RequestContext, params: xf.PermissionProfileListParams
) -> xf.PermissionProfileListResponse:
    """The three built-in profiles; one whose sandbox mode the managed requirements forbid is not allowed."""
    req = await asyncio.to_thread(load_requirements)
    modes = req.sandbox_modes if req is not None else None
    profiles = [
        xf.PermissionProfileSummary(
            id=p, description=None, allowed=modes is None or _PROFILE_MODES[p] in modes
        )
        for p in _PROFILES
    ]
    data, next_cursor = page(profiles, params.cursor, params.limit, "permission profiles")
    return xf.PermissionProfileListResponse(data=data, next_cursor=next_cursor)
