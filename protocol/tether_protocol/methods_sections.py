"""The method table's desktop-app part: thread sections, metadata patches and injected history.
`methods.CLIENT_METHODS` takes every spec of this module too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether_protocol.lazy_models import models
from tether_protocol.spec import MethodSpec

# The models load on first use (lazy_models); mypy reads the real modules.
if TYPE_CHECKING:
    from tether_protocol.v2 import thread_section as ts
else:
    ts = models("tether_protocol.v2.thread_section")

_T = "thread_id"

THREAD_SECTION_LIST = MethodSpec(
    "threadSection/list",
    ts.ThreadSectionListParams,
    ts.ThreadSectionListResponse,
    doc="Thread sections: the built-in Pinned, then user sections in creation order (paged).",
)
THREAD_SECTION_CREATE = MethodSpec(
    "threadSection/create",
    ts.ThreadSectionCreateParams,
    ts.ThreadSectionCreateResponse,
    doc="Create a user section.",
)
THREAD_SECTION_UPDATE = MethodSpec(
    "threadSection/update",
    ts.ThreadSectionUpdateParams,
    ts.ThreadSectionUpdateResponse,
    doc="Rename a section, and change or clear its appearance.",
)
THREAD_SECTION_DELETE = MethodSpec(
    "threadSection/delete",
    ts.ThreadSectionDeleteParams,
    ts.ThreadSectionDeleteResponse,
    doc="Delete a user section; its threads become unsectioned.",
)
THREAD_SECTION_MOVE = MethodSpec(
    "thread/section/move",
    ts.ThreadSectionMoveParams,
    ts.ThreadSectionMoveResponse,
    scope=_T,
    doc="Move a thread into, within (before another thread) or out of a section.",
)
THREAD_METADATA_UPDATE = MethodSpec(
    "thread/metadata/update",
    ts.ThreadMetadataUpdateParams,
    ts.ThreadMetadataUpdateResponse,
    scope=_T,
    doc="Patch a thread's stored git info.",
)
THREAD_INJECT_ITEMS = MethodSpec(
    "thread/inject_items",
    ts.ThreadInjectItemsParams,
    ts.ThreadInjectItemsResponse,
    scope=_T,
    doc="Append raw Responses API items to a loaded thread's model history.",
)
