"""The method table's background terminals and client-driven processes (experimental).
`methods.CLIENT_METHODS` takes every spec of this module too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether_protocol.lazy_models import models
from tether_protocol.spec import MethodSpec

# The models load on first use (lazy_models); mypy reads the real modules.
if TYPE_CHECKING:
    from tether_protocol.v2 import process as pr
    from tether_protocol.v2 import thread_extras as tx
else:
    pr = models("tether_protocol.v2.process")
    tx = models("tether_protocol.v2.thread_extras")

_T = "thread_id"

THREAD_BACKGROUND_TERMINALS_LIST = MethodSpec(
    "thread/backgroundTerminals/list",
    tx.ThreadBackgroundTerminalsListParams,
    tx.ThreadBackgroundTerminalsListResponse,
    experimental=True,
    doc="Commands of the thread still running after their turn (experimental).",
)
THREAD_BACKGROUND_TERMINALS_TERMINATE = MethodSpec(
    "thread/backgroundTerminals/terminate",
    pr.ThreadBackgroundTerminalsTerminateParams,
    pr.ThreadBackgroundTerminalsTerminateResponse,
    scope=_T,
    experimental=True,
    doc="End one command of the thread still running after its turn (experimental).",
)
THREAD_BACKGROUND_TERMINALS_CLEAN = MethodSpec(
    "thread/backgroundTerminals/clean",
    pr.ThreadBackgroundTerminalsCleanParams,
    pr.ThreadBackgroundTerminalsCleanResponse,
    scope=_T,
    experimental=True,
    doc="End every command of the thread still running after its turn (experimental).",
)
PROCESS_SPAWN = MethodSpec(
    "process/spawn",
    pr.ProcessSpawnParams,
    pr.ProcessSpawnResponse,
    experimental=True,
    doc="Start a process under a connection-scoped handle, sandboxed as command/exec (experimental).",
)
PROCESS_WRITE_STDIN = MethodSpec(
    "process/writeStdin",
    pr.ProcessWriteStdinParams,
    pr.ProcessWriteStdinResponse,
    experimental=True,
    doc="Write to or close the stdin of a spawned process (experimental).",
)
PROCESS_KILL = MethodSpec(
    "process/kill",
    pr.ProcessKillParams,
    pr.ProcessKillResponse,
    experimental=True,
    doc="Kill a spawned process (experimental).",
)
PROCESS_RESIZE_PTY = MethodSpec(
    "process/resizePty",
    pr.ProcessResizePtyParams,
    pr.ProcessResizePtyResponse,
    experimental=True,
    doc="Resize the PTY of a spawned process (experimental).",
)
