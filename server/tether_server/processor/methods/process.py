"""`process/spawn|writeStdin|kill|resizePty`: processes a client drives by its own `processHandle`.

They run as `command/exec` runs them: under the sandbox config.toml's `sandbox_mode` names (the
request's cwd is the policy cwd), with the daemon's command environment. The answer comes once the
process has started; its output follows as `process/outputDelta` (streamed) and its end as
`process/exited`, to the connection that spawned it only. A handle is the connection's: another
connection can neither see nor end the process, and it is killed when its connection closes
(`CommandExecs.close_connection`) or the daemon stops.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import string
from pathlib import Path

from tether_protocol import server_methods as sm
from tether_protocol.v2 import process as pr
from tether_server.errors import InternalError, InvalidParams, InvalidRequest
from tether_server.processor.command_registry import ProcessTable, RunningCommand
from tether_server.processor.methods.command import child_env, configured_policy
from tether_server.processor.state import ServerState
from tether_server.rpc.connection import Connection
from tether_server.rpc.context import RequestContext
from tether_server.rpc.outgoing import send_notification
from tether_server.sandbox.runner import PreparedCommand
from tether_server.tools.exec.standalone import (
    DEFAULT_OUTPUT_CAP,
    DEFAULT_TIMEOUT_MS,
    OutputListener,
    SpawnError,
    StandaloneProcess,
    StandaloneSpec,
    Stream,
)

_BASE64 = frozenset(string.ascii_letters + string.digits + "+/=")


def _check(params: pr.ProcessSpawnParams) -> Path:
    """The cwd, once the params hold together (Codex's errors and codes)."""
    if not params.command:
        raise InvalidRequest("command must not be empty")
    if not Path(params.cwd).is_absolute():
        raise InvalidRequest("Invalid request: AbsolutePathBuf deserialized without a base path")
    if params.size is not None and not params.tty:
        raise InvalidParams("process/spawn size requires tty: true")
    if params.timeout_ms is not None and params.timeout_ms < 0:
        raise InvalidParams(f"process/spawn timeoutMs must be non-negative, got {params.timeout_ms}")
    return Path(params.cwd)


def _spec(
    params: pr.ProcessSpawnParams, prepared: PreparedCommand, cwd: Path, state: ServerState
) -> StandaloneSpec:
    # Omitted takes the default; an explicit null turns the limit off.
    given = params.model_fields_set
    if params.timeout_ms is not None:
        timeout_s: float | None = params.timeout_ms / 1000
    else:
        timeout_s = None if "timeout_ms" in given else DEFAULT_TIMEOUT_MS / 1000
    if params.output_bytes_cap is not None:
        cap: int | None = params.output_bytes_cap
    else:
        cap = None if "output_bytes_cap" in given else DEFAULT_OUTPUT_CAP
    return StandaloneSpec(
        argv=prepared.argv,
        cwd=cwd,
        env=child_env(state, params.env),
        tty=params.tty,
        stdin_open=params.tty or params.stream_stdin,
        size=(params.size.rows, params.size.cols) if params.size else None,
        output_cap=cap,
        timeout_s=timeout_s,
        pass_fds=prepared.pass_fds,
    )


def _delta_sender(conn: Connection, handle: str) -> OutputListener:
    def send(stream: Stream, chunk: bytes, cap_reached: bool) -> None:
        delta = pr.ProcessOutputDeltaNotification(
            process_handle=handle,
            stream=stream,
            delta_base64=base64.b64encode(chunk).decode("ascii"),
            cap_reached=cap_reached,
        )
        send_notification([conn], sm.PROCESS_OUTPUT_DELTA, delta)

    return send


def _spawn_failure(exc: SpawnError) -> InternalError:
    cause = exc.__cause__
    if isinstance(cause, OSError) and cause.strerror:
        return InternalError(f"failed to spawn process: {cause.strerror} (os error {cause.errno})")
    return InternalError(f"failed to spawn process: {exc.message}")


async def spawn(
    state: ServerState, ctx: RequestContext, params: pr.ProcessSpawnParams
) -> pr.ProcessSpawnResponse:
    """Start the process under the connection's handle; answered once it runs."""
    cwd = _check(params)
    conn, table = ctx.connection, state.commands.spawned
    if table.has(conn.id, params.process_handle):
        raise InvalidRequest(f'duplicate active process handle: "{params.process_handle}"')
    prepared = state.threads.deps.gate(configured_policy(state), cwd, cwd, list(params.command), True)
    spec = _spec(params, prepared, cwd, state)
    streaming = params.tty or params.stream_stdout_stderr
    try:
        process = StandaloneProcess.spawn(
            spec, _delta_sender(conn, params.process_handle) if streaming else None
        )
    except SpawnError as exc:
        prepared.cleanup()
        raise _spawn_failure(exc) from None
    except BaseException:
        prepared.cleanup()
        raise
    running = RunningCommand(process)
    table.add(conn.id, params.process_handle, running)
    running.task = asyncio.create_task(_exited(table, conn, params.process_handle, running, prepared))
    return pr.ProcessSpawnResponse()


async def _exited(
    table: ProcessTable, conn: Connection, handle: str, running: RunningCommand, prepared: PreparedCommand
) -> None:
    try:
        result = await running.process.wait()
    finally:
        with contextlib.suppress(OSError):
            prepared.cleanup()
        table.remove(conn.id, handle)
    done = pr.ProcessExitedNotification(
        process_handle=handle,
        exit_code=result.exit_code,
        stdout=result.stdout.decode("utf-8", errors="replace"),
        stdout_cap_reached=running.process.cap_reached("stdout"),
        stderr=result.stderr.decode("utf-8", errors="replace"),
        stderr_cap_reached=running.process.cap_reached("stderr"),
        output_drain_timed_out=False,
    )
    send_notification([conn], sm.PROCESS_EXITED, done)


def _decoded(text: str) -> bytes:
    for offset, char in enumerate(text):
        if char not in _BASE64:
            raise InvalidParams(f"invalid deltaBase64: Invalid symbol {ord(char)}, offset {offset}.")
    try:
        return base64.b64decode(text, validate=True)
    except binascii.Error as exc:
        raise InvalidParams(f"invalid deltaBase64: {exc}") from None


async def write_stdin(
    state: ServerState, ctx: RequestContext, params: pr.ProcessWriteStdinParams
) -> pr.ProcessWriteStdinResponse:
    """Write bytes, close stdin, or both; only for a process spawned with `streamStdin` (or a tty)."""
    if params.delta_base64 is None and not params.close_stdin:
        raise InvalidParams("process/writeStdin requires deltaBase64 or closeStdin")
    data = _decoded(params.delta_base64) if params.delta_base64 is not None else b""
    process = state.commands.spawned.get(ctx.connection.id, params.process_handle)
    if not process.spec.stdin_open:
        raise InvalidRequest("stdin streaming is not enabled for this process")
    if data:
        await process.write(data)
    if params.close_stdin:
        await process.close_stdin()
    return pr.ProcessWriteStdinResponse()


async def kill(
    state: ServerState, ctx: RequestContext, params: pr.ProcessKillParams
) -> pr.ProcessKillResponse:
    """SIGKILL the process group; `process/exited` follows (exit code 137)."""
    state.commands.spawned.get(ctx.connection.id, params.process_handle).kill()
    return pr.ProcessKillResponse()


async def resize_pty(
    state: ServerState, ctx: RequestContext, params: pr.ProcessResizePtyParams
) -> pr.ProcessResizePtyResponse:
    process = state.commands.spawned.get(ctx.connection.id, params.process_handle)
    if not process.spec.tty:
        raise InvalidRequest("failed to resize PTY: process is not attached to a PTY")
    process.resize(params.size.rows, params.size.cols)
    return pr.ProcessResizePtyResponse()
