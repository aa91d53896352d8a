"""`thread/backgroundTerminals/list|terminate|clean`: the model's commands that outlived their turn.

A command the model starts with `exec_command` and that is still running when its yield time ends
becomes a session (the model polls it with `write_stdin`, in this turn or a later one). These
methods show and end them; unloading the thread or stopping the daemon ends them too.
"""

from __future__ import annotations

from tether_protocol.v2 import process as pr
from tether_protocol.v2 import thread_extras as tx
from tether_server.errors import InvalidRequest
from tether_server.processor.state import ServerState
from tether_server.processor.thread_lookup import record_or_fail
from tether_server.processor.uuid_text import check_thread_id
from tether_server.rpc.context import RequestContext
from tether_server.tools.exec.sessions import UnknownSessionError

_I32 = (-(2**31), 2**31 - 1)


def _integer(text: str) -> int:
    """`text` as a 32-bit signed integer, refused in the words of Rust's integer parser (Codex's)."""
    if not text:
        raise ValueError("cannot parse integer from empty string")
    digits = text[1:] if text[0] in "+-" else text
    if not digits or not digits.isascii() or not digits.isdigit():
        raise ValueError("invalid digit found in string")
    value = int(text)
    if value > _I32[1]:
        raise ValueError("number too large to fit in target type")
    if value < _I32[0]:
        raise ValueError("number too small to fit in target type")
    return value


async def _known(state: ServerState, thread_id: str) -> None:
    check_thread_id(thread_id)
    await record_or_fail(state, thread_id)


async def list_terminals(
    state: ServerState, ctx: RequestContext, params: tx.ThreadBackgroundTerminalsListParams
) -> tx.ThreadBackgroundTerminalsListResponse:
    """The thread's running sessions by process id; the cursor is the last id of the previous page."""
    await _known(state, params.thread_id)
    after = None
    if params.cursor is not None:
        try:
            after = _integer(params.cursor)
        except ValueError as exc:
            raise InvalidRequest(f"invalid cursor: {exc}") from None
    handle = state.threads.get(params.thread_id)
    sessions = handle.processes.background() if handle is not None else []
    sessions = [s for s in sessions if after is None or s.session_id > after]
    # Codex answers every terminal for a limit of 0, as for none.
    limit = params.limit or len(sessions)
    page, more = sessions[:limit], len(sessions) > limit
    data = [
        tx.ThreadBackgroundTerminal(
            item_id=s.item_id, process_id=str(s.session_id), command=s.command, cwd=s.cwd, os_pid=s.pid
        )
        for s in page
    ]
    return tx.ThreadBackgroundTerminalsListResponse(
        data=data, next_cursor=str(page[-1].session_id) if more and page else None
    )


async def terminate(
    state: ServerState, ctx: RequestContext, params: pr.ThreadBackgroundTerminalsTerminateParams
) -> pr.ThreadBackgroundTerminalsTerminateResponse:
    """Ends one session's process tree; `terminated: false` when no such session runs."""
    await _known(state, params.thread_id)
    try:
        session_id = _integer(params.process_id)
    except ValueError as exc:
        raise InvalidRequest(f"invalid background terminal process id: {exc}") from None
    handle = state.threads.get(params.thread_id)
    if handle is None:
        return pr.ThreadBackgroundTerminalsTerminateResponse(terminated=False)
    try:
        await handle.processes.terminate(session_id)
    except UnknownSessionError:
        return pr.ThreadBackgroundTerminalsTerminateResponse(terminated=False)
    return pr.ThreadBackgroundTerminalsTerminateResponse(terminated=True)


async def clean(
    state: ServerState, ctx: RequestContext, params: pr.ThreadBackgroundTerminalsCleanParams
) -> pr.ThreadBackgroundTerminalsCleanResponse:
    """Ends every session of the thread."""
    await _known(state, params.thread_id)
    handle = state.threads.get(params.thread_id)
    if handle is not None:
        await handle.processes.clean()
    return pr.ThreadBackgroundTerminalsCleanResponse()
