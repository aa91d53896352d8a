"""The method table's thread goals (`thread/goal/*`). `methods.CLIENT_METHODS` takes every spec of
this module too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether_protocol.lazy_models import models
from tether_protocol.spec import MethodSpec

# The models load on first use (lazy_models); mypy reads the real modules.
if TYPE_CHECKING:
    from tether_protocol.v2 import thread_goal as tg
else:
    tg = models("tether_protocol.v2.thread_goal")

_T = "thread_id"

THREAD_GOAL_SET = MethodSpec(
    "thread/goal/set",
    tg.ThreadGoalSetParams,
    tg.ThreadGoalSetResponse,
    scope=_T,
    doc="Set a thread's goal, or change its objective, status or token budget.",
)
THREAD_GOAL_GET = MethodSpec(
    "thread/goal/get", tg.ThreadGoalGetParams, tg.ThreadGoalGetResponse, doc="A thread's goal, if any."
)
THREAD_GOAL_CLEAR = MethodSpec(
    "thread/goal/clear",
    tg.ThreadGoalClearParams,
    tg.ThreadGoalClearResponse,
    scope=_T,
    doc="Remove a thread's goal.",
)
