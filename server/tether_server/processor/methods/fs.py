"""The `fs/*` methods: host files by absolute path, under the `fs_rules` (not thread policy, like Codex).

The blocking work is in `fs_ops` and runs in worker threads under the per-connection cap.
"""

from __future__ import annotations

import base64
import binascii
import os
import stat
from pathlib import Path

from tether_protocol.v2 import fs as wire
from tether_server.errors import InvalidParams, InvalidRequest
from tether_server.processor import fs_ops, fs_rules
from tether_server.processor.file_jobs import os_error
from tether_server.processor.state import ServerState
from tether_server.rpc.context import RequestContext

MAX_READ_BYTES = 64 * 1024 * 1024
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC
_CHUNK = 1 << 20


def _read(path: str, private: list[Path]) -> bytes:
    real = fs_rules.resolved(path, private)
    # Checked before opening: opening a FIFO or a device can block, or has side effects.
    if not stat.S_ISREG(os.stat(real).st_mode):
        raise InvalidRequest(f"not a regular file: {path}")
    fd = os.open(real, _OPEN_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InvalidRequest(f"not a regular file: {path}")
        fs_rules.check_fd(fd, private)
        data = bytearray()
        while chunk := os.read(fd, _CHUNK):
            data += chunk
            if len(data) > MAX_READ_BYTES:
                raise InvalidRequest(f"file is larger than {MAX_READ_BYTES} bytes: {path}")
        return bytes(data)
    finally:
        os.close(fd)


async def read_file(
    state: ServerState, ctx: RequestContext, params: wire.FsReadFileParams
) -> wire.FsReadFileResponse:
    path = fs_rules.absolute(params.path)
    data = await state.file_jobs.run(ctx.connection.id, _read, path, fs_rules.private_paths(state))
    return wire.FsReadFileResponse(data_base64=base64.b64encode(data).decode("ascii"))


async def write_file(
    state: ServerState, ctx: RequestContext, params: wire.FsWriteFileParams
) -> wire.FsWriteFileResponse:
    path = fs_rules.absolute(params.path)
    try:
        data = base64.b64decode(params.data_base64, validate=True)
    except binascii.Error:
        raise InvalidParams("Invalid params: dataBase64 is not valid base64") from None
    await state.file_jobs.run(ctx.connection.id, fs_ops.write_file, path, data, fs_rules.private_paths(state))
    return wire.FsWriteFileResponse()


async def create_directory(
    state: ServerState, ctx: RequestContext, params: wire.FsCreateDirectoryParams
) -> wire.FsCreateDirectoryResponse:
    path = fs_rules.absolute(params.path)
    recursive = params.recursive is not False
    private = fs_rules.private_paths(state)
    await state.file_jobs.run(ctx.connection.id, fs_ops.create_directory, path, recursive, private)
    return wire.FsCreateDirectoryResponse()


async def get_metadata(
    state: ServerState, ctx: RequestContext, params: wire.FsGetMetadataParams
) -> wire.FsGetMetadataResponse:
    path = fs_rules.absolute(params.path)
    private = fs_rules.private_paths(state)
    return await state.file_jobs.run(ctx.connection.id, fs_ops.get_metadata, path, private)


async def read_directory(
    state: ServerState, ctx: RequestContext, params: wire.FsReadDirectoryParams
) -> wire.FsReadDirectoryResponse:
    path = fs_rules.absolute(params.path)
    private = fs_rules.private_paths(state)
    entries = await state.file_jobs.run(ctx.connection.id, fs_ops.read_directory, path, private)
    return wire.FsReadDirectoryResponse(entries=entries)


async def remove(
    state: ServerState, ctx: RequestContext, params: wire.FsRemoveParams
) -> wire.FsRemoveResponse:
    path = fs_rules.absolute(params.path)
    recursive, force = params.recursive is not False, params.force is not False
    private = fs_rules.private_paths(state)
    await state.file_jobs.run(ctx.connection.id, fs_ops.remove, path, recursive, force, private)
    return wire.FsRemoveResponse()


async def copy(state: ServerState, ctx: RequestContext, params: wire.FsCopyParams) -> wire.FsCopyResponse:
    source = fs_rules.absolute(params.source_path)
    destination = fs_rules.absolute(params.destination_path)
    private = fs_rules.private_paths(state)
    await state.file_jobs.run(ctx.connection.id, fs_ops.copy, source, destination, params.recursive, private)
    return wire.FsCopyResponse()


async def watch(state: ServerState, ctx: RequestContext, params: wire.FsWatchParams) -> wire.FsWatchResponse:
    path = fs_rules.absolute(params.path)
    # Resolving touches the filesystem: a worker thread, so a hung mount cannot stall the loop.
    real, directory, only, dir_fd = await state.file_jobs.run(
        ctx.connection.id,
        fs_ops.open_watched,
        path,
        fs_rules.private_paths(state),
        abandoned=lambda opened: os.close(opened[3]),
    )
    try:
        # The watch goes on the directory that was opened and checked, not on its name again.
        state.watches.start(ctx.connection, params.watch_id, directory, only, f"/proc/self/fd/{dir_fd}")
    except OSError as exc:
        raise os_error(exc) from None
    finally:
        os.close(dir_fd)
    return wire.FsWatchResponse(path=real)


async def unwatch(
    state: ServerState, ctx: RequestContext, params: wire.FsUnwatchParams
) -> wire.FsUnwatchResponse:
    state.watches.stop(ctx.connection, params.watch_id)
    return wire.FsUnwatchResponse()
