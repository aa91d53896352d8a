"""The method table's experimental history reads and running-turn settings. `methods.CLIENT_METHODS`
takes every spec of this module too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether_protocol.lazy_models import models
from tether_protocol.spec import MethodSpec

# The models load on first use (lazy_models); mypy reads the real modules.
if TYPE_CHECKING:
    from tether_protocol.v2 import thread_timeline as tt
else:
    tt = models("tether_protocol.v2.thread_timeline")

_T = "thread_id"

THREAD_ITEMS_READ = MethodSpec(
    "thread/items/read",
    tt.ThreadItemsReadParams,
    tt.ThreadItemsReadResponse,
    experimental=True,
    doc="Stored items of one turn by id (experimental).",
)
THREAD_SEARCH_OCCURRENCES = MethodSpec(
    "thread/searchOccurrences",
    tt.ThreadSearchOccurrencesParams,
    tt.ThreadSearchOccurrencesResponse,
    experimental=True,
    doc="Where a term occurs in a thread's user messages and answers (experimental).",
)
THREAD_TIMELINE_LIST = MethodSpec(
    "thread/timeline/list",
    tt.ThreadTimelineListParams,
    tt.ThreadTimelineListResponse,
    experimental=True,
    doc="A thread's turn boundaries and items in stored order (experimental).",
)
TURN_SETTINGS_UPDATE = MethodSpec(
    "turn/settings/update",
    tt.TurnSettingsUpdateParams,
    tt.TurnSettingsUpdateResponse,
    scope=_T,
    experimental=True,
    doc="Settings of a running turn (experimental; needs the step_model_switching feature).",
)
