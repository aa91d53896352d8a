"""One model-driven child process (`exec_command` sessions): spawned on a PTY or a pipe with stdout
and stderr merged, its text streamed and kept head and tail, and its whole process group killed.

The spawning, reading and exit-watching parts are `child`'s, shared with `command/exec`.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path

from tether_server import log
from tether_server.tools.exec import child
from tether_server.tools.exec.child import SpawnError
from tether_server.tools.exec.output import Collected, HeadTailBuffer

OutputSink = Callable[[str], None]

# After the main process exits, how long to wait for the rest of its output to be readable.
POST_EXIT_DRAIN_S = 0.25
TERM_GRACE_S = 0.5
KILL_WAIT_S = 2.0

_logger = log.get(__name__)


class LiveProcess:
    """A spawned command, its merged output stream and its process group."""

    def __init__(self, popen: subprocess.Popen[bytes], read_fd: int, tty: bool) -> None:
        self.popen = popen
        self.pid = popen.pid
        self.tty = tty
        self._fd = read_fd
        self._loop = asyncio.get_running_loop()
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._buffer = HeadTailBuffer()
        self._sink: OutputSink | None = None
        self._kill_task: asyncio.Task[None] | None = None
        self.on_exit: Callable[[], None] | None = None
        self._reader = child.FdReader(read_fd, self._on_data, label=f"exec {self.pid}")
        self._exit = child.ExitWatch(popen)

    def run_exit_hook(self) -> None:
        """Release what was prepared for this process (sandbox fds and stubs); runs once."""
        hook, self.on_exit = self.on_exit, None
        if hook is not None:
            hook()

    @property
    def exit_code(self) -> int | None:
        """The exit code once the main process has been reaped; 128+N after death by signal N."""
        code = self.popen.returncode
        if code is None:
            return None
        return 128 - code if code < 0 else code

    async def collect(self, deadline: float, sink: OutputSink | None) -> Collected:
        """Waits until `deadline` (loop time) or exit, streaming new text to `sink`, and returns it."""
        self._sink = sink
        exited = self._exit.exited
        try:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout_at(deadline):
                    await exited.wait()
            if exited.is_set():
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(POST_EXIT_DRAIN_S):
                        await self._reader.eof.wait()
        finally:
            self._sink = None
        return self._buffer.take()

    @property
    def closing(self) -> bool:
        """Whether a kill has been started; the process must not be handed out as a session any more."""
        return self._kill_task is not None

    async def write(self, text: str) -> None:
        """Sends `text` to the PTY; waits for room rather than blocking the loop.

        Characters sent after the process went away are dropped: the next collect reports the exit.
        """
        error = await child.write_all(self._fd, text.encode("utf-8"), lambda: not self.closing)
        if error is not None:
            _logger.info("exec_write_failed", pid=self.pid, error=str(error))

    async def kill_tree(self) -> None:
        """SIGTERM the process group, SIGKILL what survives the grace period, reap, release the fds.

        Safe to call repeatedly and concurrently: every caller waits for the same kill.
        """
        if self._kill_task is None:
            self._kill_task = self._loop.create_task(self._kill())
        await asyncio.shield(self._kill_task)

    async def _kill(self) -> None:
        if not await self._signal_and_wait(signal.SIGTERM, TERM_GRACE_S):
            await self._signal_and_wait(signal.SIGKILL, KILL_WAIT_S)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(KILL_WAIT_S):
                await self._exit.exited.wait()
        self._release()

    async def _signal_and_wait(self, sig: signal.Signals, wait_s: float) -> bool:
        # Checking first keeps a reaped, empty group's id (which the kernel may reuse) from being signalled.
        if not child.group_has_live_members(self.pid):
            return True
        child.signal_group(self.pid, sig)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(wait_s):
                # Group membership has no wakeup to wait on, so it is polled.
                while child.group_has_live_members(self.pid):  # noqa: ASYNC110
                    await asyncio.sleep(child.POLL_S)
                return True
        return False

    def _on_data(self, data: bytes) -> None:
        text = self._decoder.decode(data, final=not data)
        if not text:
            return
        self._buffer.append(text)
        if self._sink is not None:
            self._sink(text)

    def _release(self) -> None:
        self._reader.close()
        self._exit.close()
        if self.popen.poll() is None:
            _logger.warning("exec_process_unreaped", pid=self.pid)


def spawn(
    argv: list[str], cwd: Path, env: Mapping[str, str], tty: bool, *, pass_fds: tuple[int, ...] = ()
) -> LiveProcess:
    """Starts `argv` in a new session with stdout and stderr merged.

    Args:
        argv: the program and its arguments (already wrapped by the sandbox, if any).
        cwd: working directory.
        env: the complete child environment.
        tty: give the child a PTY (stdin stays writable) instead of pipes (stdin is /dev/null).

    Raises:
        SpawnError: the program or directory does not exist or cannot be executed.
    """
    if not argv:
        raise SpawnError("command must not be empty")
    read_fd, child_fd = child.open_pty() if tty else os.pipe()
    stdin: int = child_fd if tty else subprocess.DEVNULL
    try:
        popen = child.start(argv, cwd, env, (stdin, child_fd, child_fd), tty=tty, pass_fds=pass_fds)
    except SpawnError:
        os.close(read_fd)
        raise
    finally:
        os.close(child_fd)
    return LiveProcess(popen, read_fd, tty)


__all__ = ["LiveProcess", "OutputSink", "SpawnError", "spawn"]
