"""fs/readFile: read a file on the daemon's host (not sandboxed by thread policy, like Codex)."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

from tether_protocol.v2.fs import FsReadFileParams, FsReadFileResponse
from tether_server.errors import InternalError, InvalidRequest
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext

MAX_READ_BYTES = 64 * 1024 * 1024


def _read(path: Path) -> bytes:
    with path.open("rb") as handle:
        data = handle.read(MAX_READ_BYTES + 1)
    if len(data) > MAX_READ_BYTES:
        raise InvalidRequest(f"file is larger than {MAX_READ_BYTES} bytes: {path}")
    return data


async def read_file(state: ServerState, ctx: RequestContext, params: FsReadFileParams) -> FsReadFileResponse:
    path = Path(params.path)
    if not path.is_absolute():
        raise InvalidRequest("Invalid request: AbsolutePathBuf deserialized without a base path")
    try:
        data = await asyncio.to_thread(_read, path)
    except OSError as exc:
        raise InternalError(f"{exc.strerror} (os error {exc.errno})") from None
    return FsReadFileResponse(data_base64=base64.b64encode(data).decode("ascii"))
