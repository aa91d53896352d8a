"""`command/exec` and its follow-ups: standalone processes outside any thread (protocol.md §8.19).

A process belongs to the connection that started it, under the client's `processId`. The
`command/exec` response is sent when the process has exited, after all its output deltas: the
handler returns a `Deferred` answer, so that the request itself ends at once and the connection
can close while a process runs (it is then killed, see `ServerState.connection_closed`).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import itertools
import os
from pathlib import Path
from typing import Any

from tether_protocol import server_methods as sm
from tether_protocol.v2.command import (
    CommandExecOutputDeltaNotification,
    CommandExecParams,
    CommandExecResizeParams,
    CommandExecResizeResponse,
    CommandExecResponse,
    CommandExecTerminateParams,
    CommandExecTerminateResponse,
    CommandExecWriteParams,
    CommandExecWriteResponse,
)
from tether_server.core.settings import sandbox_policy_for_mode
from tether_server.errors import InvalidRequest
from tether_server.processor.command_registry import CommandExecs, RunningCommand
from tether_server.processor.settings import wire
from tether_server.processor.state import ServerState
from tether_server.rpc.connection import Connection
from tether_server.rpc.context import Deferred, RequestContext
from tether_server.rpc.outgoing import send_notification
from tether_server.sandbox.runner import PreparedCommand
from tether_server.tools.exec.standalone import (
    DEFAULT_OUTPUT_CAP,
    DEFAULT_TIMEOUT_MS,
    OutputListener,
    StandaloneProcess,
    StandaloneResult,
    StandaloneSpec,
    Stream,
)

_internal_ids = itertools.count(1)


def _check_params(params: CommandExecParams) -> None:
    if not params.command:
        raise InvalidRequest("command must not be empty")
    streaming = params.tty or params.stream_stdin or params.stream_stdout_stderr
    if streaming and params.process_id is None:
        raise InvalidRequest("command/exec tty or streaming requires a client-supplied processId")
    if params.output_bytes_cap is not None and params.disable_output_cap:
        raise InvalidRequest("command/exec cannot set both outputBytesCap and disableOutputCap")
    if params.timeout_ms is not None and params.disable_timeout:
        raise InvalidRequest("command/exec cannot set both timeoutMs and disableTimeout")
    if params.timeout_ms is not None and params.timeout_ms < 0:
        raise InvalidRequest("command/exec timeoutMs must not be negative")
    if params.size is not None and not params.tty:
        raise InvalidRequest("command/exec size is only valid when tty is true")


def _cwd(params: CommandExecParams) -> Path:
    base = Path(os.getcwd())
    return base / params.cwd if params.cwd else base


def child_env(state: ServerState, overrides: dict[str, str | None] | None) -> dict[str, str]:
    """The daemon's command environment with a client's overrides (None unsets a name)."""
    env = dict(state.threads.deps.env)
    for name, value in (overrides or {}).items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def _sandbox_policy(state: ServerState, params: CommandExecParams) -> dict[str, Any]:
    if params.sandbox_policy is not None:
        policy = wire(params.sandbox_policy)
        return {k: v for k, v in policy.items() if v is not None}
    return configured_policy(state)


def configured_policy(state: ServerState) -> dict[str, Any]:
    """The sandbox of a client's command that names none: config.toml's `sandbox_mode`."""
    cfg = state.config.config
    ww = cfg.sandbox_workspace_write
    return sandbox_policy_for_mode(
        cfg.sandbox_mode,
        writable_roots=list(ww.writable_roots),
        network=ww.network_access,
        exclude_tmpdir=ww.exclude_tmpdir_env_var,
        exclude_slash_tmp=ww.exclude_slash_tmp,
    )


def _spec(
    params: CommandExecParams, prepared: PreparedCommand, cwd: Path, env: dict[str, str]
) -> StandaloneSpec:
    if params.disable_timeout:
        timeout_s: float | None = None
    else:
        timeout_s = (DEFAULT_TIMEOUT_MS if params.timeout_ms is None else params.timeout_ms) / 1000
    if params.disable_output_cap:
        cap: int | None = None
    else:
        cap = DEFAULT_OUTPUT_CAP if params.output_bytes_cap is None else params.output_bytes_cap
    return StandaloneSpec(
        argv=prepared.argv,
        cwd=cwd,
        env=env,
        tty=params.tty,
        stdin_open=params.tty or params.stream_stdin,
        size=(params.size.rows, params.size.cols) if params.size else None,
        output_cap=cap,
        timeout_s=timeout_s,
        pass_fds=prepared.pass_fds,
    )


def _delta_sender(conn: Connection, process_id: str) -> OutputListener:
    def send(stream: Stream, chunk: bytes, cap_reached: bool) -> None:
        delta = CommandExecOutputDeltaNotification(
            process_id=process_id,
            stream=stream,
            delta_base64=base64.b64encode(chunk).decode("ascii"),
            cap_reached=cap_reached,
        )
        send_notification([conn], sm.COMMAND_EXEC_OUTPUT_DELTA, delta)

    return send


async def exec_command(
    state: ServerState, ctx: RequestContext, params: CommandExecParams
) -> Deferred[CommandExecResponse]:
    """Start the process; it is answered once it has exited."""
    _check_params(params)
    conn = ctx.connection
    process_id = params.process_id if params.process_id is not None else f"internal-{next(_internal_ids)}"
    execs = state.commands
    if execs.has(conn.id, process_id):
        raise InvalidRequest(f'duplicate active command/exec process id: "{process_id}"')
    cwd = _cwd(params)
    # The request's cwd is also its policy cwd (as in Codex); `/` and system dirs never become
    # writable roots (sandbox.mounts.SYSTEM_ROOTS).
    prepared = state.threads.deps.gate(_sandbox_policy(state, params), cwd, cwd, list(params.command), True)
    spec = _spec(params, prepared, cwd, child_env(state, params.env))
    streaming = params.tty or params.stream_stdout_stderr
    try:
        process = StandaloneProcess.spawn(spec, _delta_sender(conn, process_id) if streaming else None)
    except BaseException:
        prepared.cleanup()
        raise
    running = RunningCommand(process)
    execs.add(conn.id, process_id, running)
    running.task = asyncio.create_task(_finish(execs, conn.id, process_id, running, prepared))
    return Deferred(running.task)


async def _finish(
    execs: CommandExecs, conn_id: int, process_id: str, running: RunningCommand, prepared: PreparedCommand
) -> CommandExecResponse:
    try:
        result = await running.process.wait()
    finally:
        with contextlib.suppress(OSError):
            prepared.cleanup()
        execs.remove(conn_id, process_id)
    return _result(result)


def _result(result: StandaloneResult) -> CommandExecResponse:
    return CommandExecResponse(
        exit_code=result.exit_code,
        stdout=result.stdout.decode("utf-8", errors="replace"),
        stderr=result.stderr.decode("utf-8", errors="replace"),
    )


async def write(
    state: ServerState, ctx: RequestContext, params: CommandExecWriteParams
) -> CommandExecWriteResponse:
    process = state.commands.get(ctx.connection.id, params.process_id)
    if params.delta_base64:
        try:
            data = base64.b64decode(params.delta_base64, validate=True)
        except binascii.Error as exc:
            raise InvalidRequest(f"invalid deltaBase64: {exc}") from None
        await process.write(data)
    if params.close_stdin:
        await process.close_stdin()
    return CommandExecWriteResponse()


async def resize(
    state: ServerState, ctx: RequestContext, params: CommandExecResizeParams
) -> CommandExecResizeResponse:
    process = state.commands.get(ctx.connection.id, params.process_id)
    process.resize(params.size.rows, params.size.cols)
    return CommandExecResizeResponse()


async def terminate(
    state: ServerState, ctx: RequestContext, params: CommandExecTerminateParams
) -> CommandExecTerminateResponse:
    state.commands.get(ctx.connection.id, params.process_id).kill()
    return CommandExecTerminateResponse()
