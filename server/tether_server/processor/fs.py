"""fs/readFile: read a file on the daemon's host (not sandboxed by thread policy, like Codex).

What a client may read stops at the daemon itself. Only regular files are read (a FIFO or a device
would block a worker thread for good, or act on the open), never the daemon's own `/proc` entries
(`/proc/self/environ` holds the provider key) nor its private files (`$TETHER_HOME`, sockets,
token and key files). The path is resolved first, and the file actually opened is checked again.
"""

from __future__ import annotations

import asyncio
import base64
import os
import stat
from collections import Counter
from pathlib import Path

from tether_protocol.v2.fs import FsReadFileParams, FsReadFileResponse
from tether_server.errors import InternalError, InvalidParams, InvalidRequest, Overloaded
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext
from tether_server.rpc.dispatcher import OVERLOADED

MAX_READ_BYTES = 64 * 1024 * 1024
# Reads run in worker threads shared by every client: one connection may hold only a few.
MAX_FILE_JOBS_PER_CONNECTION = 4
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC
_CHUNK = 1 << 20
_jobs: Counter[int] = Counter()


def _own_proc_entry(parts: tuple[str, ...]) -> bool:
    """`/proc/self`, `/proc/thread-self`, `/proc/<our pid>` or `/proc/<one of our thread ids>`."""
    if len(parts) < 3 or parts[:2] != ("/", "proc"):
        return False
    name = parts[2]
    if name in ("self", "thread-self"):
        return True
    return name.isdigit() and (int(name) == os.getpid() or os.path.exists(f"/proc/self/task/{name}"))


def _refusal(path: str, private: list[Path]) -> str | None:
    resolved = Path(path)
    if _own_proc_entry(resolved.parts):
        return f"access denied: {path} is the server's own process information"
    if any(resolved.is_relative_to(p) for p in private):
        return f"access denied: {path} is private to the server"
    return None


def _read(path: str, private: list[Path]) -> bytes:
    real = os.path.realpath(path)
    refusal = _refusal(real, private)
    if refusal is not None:
        raise InvalidRequest(refusal)
    # Checked before opening: opening a FIFO or a device can block, or has side effects.
    if not stat.S_ISREG(os.stat(real).st_mode):
        raise InvalidRequest(f"not a regular file: {path}")
    fd = os.open(real, _OPEN_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InvalidRequest(f"not a regular file: {path}")
        # What was opened, whatever was swapped in between: the kernel's name for the descriptor.
        refusal = _refusal(os.readlink(f"/proc/self/fd/{fd}"), private)
        if refusal is not None:
            raise InvalidRequest(refusal)
        return _read_all(fd, path)
    finally:
        os.close(fd)


def _read_all(fd: int, path: str) -> bytes:
    data = bytearray()
    while chunk := os.read(fd, _CHUNK):
        data += chunk
        if len(data) > MAX_READ_BYTES:
            raise InvalidRequest(f"file is larger than {MAX_READ_BYTES} bytes: {path}")
    return bytes(data)


def _release(conn_id: int, work: asyncio.Future[bytes]) -> None:
    _jobs[conn_id] -= 1
    if _jobs[conn_id] <= 0:
        del _jobs[conn_id]
    if not work.cancelled():
        work.exception()  # retrieved here when the request was cancelled before it


async def read_file(state: ServerState, ctx: RequestContext, params: FsReadFileParams) -> FsReadFileResponse:
    raw = str(params.path)
    if "\0" in raw:
        raise InvalidParams("Invalid params: path contains a NUL byte")
    if not Path(raw).is_absolute():
        raise InvalidRequest("Invalid request: AbsolutePathBuf deserialized without a base path")
    conn_id = ctx.connection.id
    if _jobs[conn_id] >= MAX_FILE_JOBS_PER_CONNECTION:
        raise Overloaded(OVERLOADED, data={"scope": "fs", "limit": MAX_FILE_JOBS_PER_CONNECTION})
    private = [p.resolve() for p in state.private_paths]
    _jobs[conn_id] += 1
    work = asyncio.ensure_future(asyncio.to_thread(_read, raw, private))
    # The slot is held until the thread is done, even if the request is cancelled first.
    work.add_done_callback(lambda f: _release(conn_id, f))
    try:
        data = await asyncio.shield(work)
    except OSError as exc:
        raise InternalError(f"{exc.strerror} (os error {exc.errno})") from None
    return FsReadFileResponse(data_base64=base64.b64encode(data).decode("ascii"))
