"""The method table's workspace files (`fs/*` but `fs/readFile`, `fuzzyFileSearch*`) and
`review/start`, which reviews their changes. `methods.CLIENT_METHODS` takes every spec of this
module right after its own, in this order (the exported schema lists methods in table order)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether_protocol.lazy_models import models
from tether_protocol.spec import MethodSpec

# The models load on first use (lazy_models); mypy reads the real modules.
if TYPE_CHECKING:
    from tether_protocol.v2 import fs
    from tether_protocol.v2 import fuzzy as fz
    from tether_protocol.v2 import review_mode as rm
else:
    fs = models("tether_protocol.v2.fs")
    fz = models("tether_protocol.v2.fuzzy")
    rm = models("tether_protocol.v2.review_mode")

_T = "thread_id"

FS_WRITE_FILE = MethodSpec(
    "fs/writeFile", fs.FsWriteFileParams, fs.FsWriteFileResponse, doc="Replace a file's content (atomic)."
)
FS_CREATE_DIRECTORY = MethodSpec(
    "fs/createDirectory",
    fs.FsCreateDirectoryParams,
    fs.FsCreateDirectoryResponse,
    doc="Create a directory (and its parents).",
)
FS_GET_METADATA = MethodSpec(
    "fs/getMetadata", fs.FsGetMetadataParams, fs.FsGetMetadataResponse, doc="Kind and times of a path."
)
FS_READ_DIRECTORY = MethodSpec(
    "fs/readDirectory", fs.FsReadDirectoryParams, fs.FsReadDirectoryResponse, doc="A directory's children."
)
FS_REMOVE = MethodSpec(
    "fs/remove", fs.FsRemoveParams, fs.FsRemoveResponse, doc="Remove a file or tree (symlinks not followed)."
)
FS_COPY = MethodSpec("fs/copy", fs.FsCopyParams, fs.FsCopyResponse, doc="Copy a file or tree.")
FS_WATCH = MethodSpec(
    "fs/watch", fs.FsWatchParams, fs.FsWatchResponse, doc="Send this connection `fs/changed` for a path."
)
FS_UNWATCH = MethodSpec("fs/unwatch", fs.FsUnwatchParams, fs.FsUnwatchResponse, doc="Stop a watch.")
FUZZY_FILE_SEARCH = MethodSpec(
    "fuzzyFileSearch",
    fz.FuzzyFileSearchParams,
    fz.FuzzyFileSearchResponse,
    doc="Fuzzy-match file paths under roots (honours .gitignore).",
)
FUZZY_FILE_SEARCH_SESSION_START = MethodSpec(
    "fuzzyFileSearch/sessionStart",
    fz.FuzzyFileSearchSessionStartParams,
    fz.FuzzyFileSearchSessionStartResponse,
    experimental=True,
    doc="Index roots once for a search session (experimental).",
)
FUZZY_FILE_SEARCH_SESSION_UPDATE = MethodSpec(
    "fuzzyFileSearch/sessionUpdate",
    fz.FuzzyFileSearchSessionUpdateParams,
    fz.FuzzyFileSearchSessionUpdateResponse,
    experimental=True,
    doc="A new query for a session; answered by notifications (experimental).",
)
FUZZY_FILE_SEARCH_SESSION_STOP = MethodSpec(
    "fuzzyFileSearch/sessionStop",
    fz.FuzzyFileSearchSessionStopParams,
    fz.FuzzyFileSearchSessionStopResponse,
    experimental=True,
    doc="End a search session (experimental).",
)
REVIEW_START = MethodSpec(
    "review/start",
    rm.ReviewStartParams,
    rm.ReviewStartResponse,
    scope=_T,
    doc="Review changes (working tree, branch, commit or custom) in a turn of the thread.",
)
