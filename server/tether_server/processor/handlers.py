"""The handler map: wire method → processor function (bound to the server state)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from tether_server.processor import command, fs, history, misc, thread, turn
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext
from tether_server.rpc.dispatcher import Handler

Impl = Callable[[ServerState, RequestContext, Any], Awaitable[dict[str, Any]]]

_IMPLS: dict[str, Impl] = {
    "initialize": misc.initialize,
    "config/read": misc.config_read,
    "model/list": misc.model_list,
    "fs/readFile": fs.read_file,
    "collaborationMode/list": misc.collaboration_modes,
    "account/read": misc.account_read,
    "thread/start": thread.start,
    "thread/resume": thread.resume,
    "thread/read": thread.read,
    "thread/list": thread.list_threads,
    "thread/loaded/list": thread.loaded_list,
    "thread/unsubscribe": thread.unsubscribe,
    "thread/name/set": thread.name_set,
    "thread/archive": thread.archive,
    "thread/unarchive": thread.unarchive,
    "thread/delete": thread.delete,
    "thread/turns/list": history.turns_list,
    "thread/items/list": history.items_list,
    "thread/fork": history.fork,
    "thread/revert": history.revert,
    "turn/start": turn.start,
    "turn/steer": turn.steer,
    "turn/interrupt": turn.interrupt,
    "command/exec": command.exec_command,
    "command/exec/write": command.write,
    "command/exec/resize": command.resize,
    "command/exec/terminate": command.terminate,
    "thread/shellCommand": turn.shell_command,
    "thread/compact/start": turn.compact_start,
}


def _bind(state: ServerState, impl: Impl) -> Handler:
    async def handler(ctx: RequestContext, params: Any) -> dict[str, Any]:
        return await impl(state, ctx, params)

    return handler


def build_handlers(state: ServerState) -> Mapping[str, Handler]:
    return {name: _bind(state, impl) for name, impl in _IMPLS.items()}
