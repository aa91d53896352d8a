"""Running one command hook: a real child process, its stdin a JSON document, bounded in time.

As Codex 0.169.0 runs them (observed): the command line goes to a shell (`sh -c`), in the
session's working directory, with the daemon's environment for commands; no sandbox (a hook is
the user's own program from the user's own config, not something the model wrote). The hook runs
in a process group of its own, so a timeout kills whatever it started too; its output is read
concurrently and capped, so a chatty or hanging hook can neither fill memory nor block the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tether_server.tools.exec.child import set_parent_death_signal, signal_group

OUTPUT_CAP = 1 << 20  # bytes kept of stdout and of stderr each; the rest is read and dropped


@dataclass(frozen=True)
class HookProcessResult:
    exit_code: int | None
    """None when the hook did not finish: timed out, or could not start (`error` says which)."""
    stdout: str
    stderr: str
    duration_ms: int
    timed_out: bool = False
    error: str | None = None


def _prepare_child() -> None:  # pragma: no cover - runs in the forked child
    set_parent_death_signal()


async def _read_capped(stream: asyncio.StreamReader | None) -> bytes:
    if stream is None:
        return b""
    kept = bytearray()
    while chunk := await stream.read(65536):
        if len(kept) < OUTPUT_CAP:
            kept += chunk[: OUTPUT_CAP - len(kept)]
    return bytes(kept)


async def run_command_hook(
    command: str, stdin: bytes, cwd: Path, env: Mapping[str, str], timeout_s: float
) -> HookProcessResult:
    """Run `command` with `stdin` on its standard input; kill its process group at `timeout_s`."""
    started = time.monotonic()
    try:
        proc = await asyncio.create_subprocess_exec(
            "/bin/sh",
            "-c",
            command,
            cwd=cwd,
            env=dict(env),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            preexec_fn=_prepare_child,
        )
    except (OSError, ValueError) as exc:
        return HookProcessResult(None, "", "", _ms(started), error=f"hook could not start: {exc}")
    work = asyncio.gather(
        _feed(proc, stdin), _read_capped(proc.stdout), _read_capped(proc.stderr), proc.wait()
    )
    try:
        _, out, err, code = await asyncio.wait_for(work, timeout_s)
    except TimeoutError:
        _kill(proc.pid)
        await proc.wait()
        return HookProcessResult(None, "", "", _ms(started), timed_out=True)
    except asyncio.CancelledError:
        _kill(proc.pid)
        with contextlib.suppress(ProcessLookupError):
            await asyncio.shield(proc.wait())
        raise
    # The shell is gone; anything it left behind in its group goes with it.
    _kill(proc.pid)
    return HookProcessResult(code, _text(out), _text(err), _ms(started))


async def _feed(proc: asyncio.subprocess.Process, data: bytes) -> None:
    assert proc.stdin is not None
    # A hook that exits without reading its input is not an error.
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        proc.stdin.write(data)
        await proc.stdin.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError, OSError):
        proc.stdin.close()


def _kill(pgid: int) -> None:
    signal_group(pgid, signal.SIGKILL)


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
