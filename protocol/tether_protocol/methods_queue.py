"""The method table's queued follow-up messages (`thread/queue/*`, experimental).
`methods.CLIENT_METHODS` takes every spec of this module too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether_protocol.lazy_models import models
from tether_protocol.spec import MethodSpec

# The models load on first use (lazy_models); mypy reads the real modules.
if TYPE_CHECKING:
    from tether_protocol.v2 import thread_desktop as td
else:
    td = models("tether_protocol.v2.thread_desktop")

_T = "thread_id"

THREAD_QUEUE_ADD = MethodSpec(
    "thread/queue/add",
    td.ThreadQueueAddParams,
    td.ThreadQueueAddResponse,
    scope=_T,
    experimental=True,
    doc="Queue a follow-up message; it starts at once when the thread is idle with nothing queued.",
)
THREAD_QUEUE_LIST = MethodSpec(
    "thread/queue/list",
    td.ThreadQueueListParams,
    td.ThreadQueueListResponse,
    scope=_T,
    experimental=True,
    doc="A thread's queued messages in the order they will start (paged).",
)
THREAD_QUEUE_UPDATE = MethodSpec(
    "thread/queue/update",
    td.ThreadQueueUpdateParams,
    td.ThreadQueueUpdateResponse,
    scope=_T,
    experimental=True,
    doc="Replace a queued message's input (and metadata, when given non-empty).",
)
THREAD_QUEUE_DELETE = MethodSpec(
    "thread/queue/delete",
    td.ThreadQueueDeleteParams,
    td.ThreadQueueDeleteResponse,
    scope=_T,
    experimental=True,
    doc="Drop a queued message.",
)
THREAD_QUEUE_REORDER = MethodSpec(
    "thread/queue/reorder",
    td.ThreadQueueReorderParams,
    td.ThreadQueueReorderResponse,
    scope=_T,
    experimental=True,
    doc="Put a thread's queued messages in a new order (every id exactly once).",
)
THREAD_QUEUE_START = MethodSpec(
    "thread/queue/start",
    td.ThreadQueueStartParams,
    td.ThreadQueueStartResponse,
    scope=_T,
    experimental=True,
    doc="Start a queued message (the first, or the one named) as a turn of the idle thread.",
)
