"""Thread management: archive, unarchive, delete, rename, compact, revert, unsubscribe, shell command."""

from __future__ import annotations

from typing import Literal

from tether_protocol.common import WireModel
from tether_protocol.v2.thread import Thread


class ThreadIdParams(WireModel):
    """Params that carry only a thread id."""

    thread_id: str


class ThreadArchiveParams(ThreadIdParams):
    """`thread/archive` params."""


class ThreadArchiveResponse(WireModel):
    """`thread/archive` result (`{}`)."""


class ThreadUnarchiveParams(ThreadIdParams):
    """`thread/unarchive` params."""


class ThreadUnarchiveResponse(WireModel):
    """`thread/unarchive` result: the restored (unloaded) thread."""

    thread: Thread


class ThreadDeleteParams(ThreadIdParams):
    """`thread/delete` params."""


class ThreadDeleteResponse(WireModel):
    """`thread/delete` result (`{}`)."""


class ThreadSetNameParams(ThreadIdParams):
    """`thread/name/set` params."""

    name: str


class ThreadSetNameResponse(WireModel):
    """`thread/name/set` result (`{}`)."""


class ThreadCompactStartParams(ThreadIdParams):
    """`thread/compact/start` params."""


class ThreadCompactStartResponse(WireModel):
    """`thread/compact/start` result (`{}`); the compaction runs as a turn."""


class ThreadRevertParams(ThreadIdParams):
    """`thread/revert` params: keep history strictly before `beforeTurnId`."""

    before_turn_id: str


class ThreadRevertResponse(WireModel):
    """`thread/revert` result."""

    thread: Thread
    turns_backwards_cursor: str | None = None
    items_backwards_cursor: str | None = None


class ThreadUnsubscribeParams(ThreadIdParams):
    """`thread/unsubscribe` params."""


ThreadUnsubscribeStatus = Literal["notLoaded", "notSubscribed", "unsubscribed"]


class ThreadUnsubscribeResponse(WireModel):
    """`thread/unsubscribe` result."""

    status: ThreadUnsubscribeStatus


class ThreadShellCommandParams(ThreadIdParams):
    """`thread/shellCommand` params: a shell-syntax command run unsandboxed."""

    command: str
    timeout_ms: int | None = None


class ThreadShellCommandResponse(WireModel):
    """`thread/shellCommand` result (`{}`)."""
