"""`thread/shellCommand`: the user's own command, run unsandboxed and recorded in the thread."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether_server.core import events as ev
from tether_server.core import items
from tether_server.core.ids import now_ms, uuid7
from tether_server.core.shell_snapshot import open_snapshot, snapshot_sandbox
from tether_server.tools.exec.shell import join_command, parse_command_actions

if TYPE_CHECKING:
    from tether_server.core.turn_scope import ActiveTurn, WorkScope

DEFAULT_TIMEOUT_MS = 3_600_000
TIMEOUT_EXIT_CODE = 124


async def _kill_group(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    await proc.wait()


async def run(
    argv: list[str],
    cwd: str,
    env: Mapping[str, str],
    timeout_ms: int | None,
    on_output: Callable[[str], None],
    *,
    pass_fds: tuple[int, ...] = (),
) -> tuple[int, str, int]:
    """Run `argv` (`bash -lc command`, or its snapshot form); returns (exit code, aggregated output,
    duration ms)."""
    started = time.monotonic()
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        pass_fds=pass_fds,
        env=dict(env),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    assert proc.stdout is not None
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    chunks: list[str] = []
    limit = (DEFAULT_TIMEOUT_MS if timeout_ms is None else max(0, timeout_ms)) / 1000
    timed_out = False
    try:
        async with asyncio.timeout(limit):
            while data := await proc.stdout.read(65536):
                text = decoder.decode(data)
                if text:
                    chunks.append(text)
                    on_output(text)
            await proc.wait()
    except TimeoutError:
        timed_out = True
        await _kill_group(proc)
    except asyncio.CancelledError:
        await asyncio.shield(_kill_group(proc))
        raise
    output = "".join(chunks)
    code = TIMEOUT_EXIT_CODE if timed_out else (proc.returncode if proc.returncode is not None else -1)
    if code < 0:
        code = 128 - code
    return code, output, int((time.monotonic() - started) * 1000)


def history_message(command: str, exit_code: int, output: str) -> dict[str, Any]:
    text = (
        f"<user_shell_command>\n<command>\n{command}\n</command>\n<result>\nExit code: {exit_code}\n"
        f"Output:\n{output}\n</result>\n</user_shell_command>"
    )
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def item(item_id: str, command: str, cwd: str) -> items.CommandExecution:
    return items.CommandExecution(
        item_id,
        join_command(["/bin/bash", "-lc", command]),
        cwd,
        parse_command_actions(command),
        now_ms(),
        source="userShell",
    )


async def run_in_turn(session: WorkScope, turn: ActiveTurn, command: str, timeout_ms: int | None) -> None:
    """Run the command as a `userShell` command item of `turn`, and tell the model what it printed."""
    thread_id, cwd = session.thread_id, session.settings.cwd
    shell = item(uuid7(), command, cwd)
    await session.sink.emit(ev.ItemStarted(thread_id, turn.id, shell))

    def on_output(text: str) -> None:
        session.sink.emit_delta(ev.CommandOutputDelta(thread_id, turn.id, shell.id, text))

    env = {**session.deps.env, "CODEX_THREAD_ID": thread_id}
    argv = ["/bin/bash", "-lc" if session.deps.allow_login_shell else "-c", command]
    # As Codex 0.169.0: the user's command reads the thread's shell snapshot too, not the profile.
    snapshots = session.deps.shell_snapshots
    wrap = snapshot_sandbox(session.deps.gate, session.settings.sandbox_policy, Path(cwd))
    argv, fd = await open_snapshot(snapshots, thread_id, argv, Path(cwd), env, wrap)
    try:
        code, output, duration = await run(
            argv, cwd, env, timeout_ms, on_output, pass_fds=() if fd is None else (fd,)
        )
    finally:
        if fd is not None:
            os.close(fd)
    shell.status = "completed" if code == 0 else "failed"
    shell.exit_code, shell.aggregated_output, shell.duration_ms = code, output, duration
    shell.completed_at_ms = now_ms()
    session.recorder.history_entry(turn.id, history_message(command, code, output))
    session.recorder.item(turn.id, shell)
    await session.sink.emit(ev.ItemCompleted(thread_id, turn.id, shell))
