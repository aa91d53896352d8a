"""One child process: spawning it (PTY or pipe) in its own session, reading it from the event loop,
and killing its whole process group.

Output is read with `loop.add_reader` on the PTY master or the pipe's read end, and exit is noticed
through a pidfd, so a live process costs two file descriptors and no thread.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import ctypes
import errno
import fcntl
import os
import signal
import struct
import subprocess
import termios
from collections.abc import Callable, Mapping
from pathlib import Path

from tether_server import log
from tether_server.errors import TetherError
from tether_server.tools.exec.output import Collected, HeadTailBuffer

OutputSink = Callable[[str], None]

READ_CHUNK = 64 * 1024
# After the main process exits, how long to wait for the rest of its output to be readable.
POST_EXIT_DRAIN_S = 0.25
TERM_GRACE_S = 0.5
KILL_WAIT_S = 2.0
_POLL_S = 0.02
_PR_SET_PDEATHSIG = 1
_PTY_ROWS, _PTY_COLS = 24, 80

_logger = log.get(__name__)
# The running interpreter already links libc: no `find_library` (it spawns ldconfig, ~25 ms at import).
_LIBC = ctypes.CDLL(None, use_errno=True)


class SpawnError(TetherError):
    """The command could not be started (missing program, bad working directory …)."""


def _prepare_child_pty() -> None:  # pragma: no cover - runs in the forked child
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    _prepare_child()


def _prepare_child() -> None:  # pragma: no cover - runs in the forked child
    set_parent_death_signal()


def set_parent_death_signal() -> None:  # pragma: no cover - runs in forked children
    """Die with the daemon rather than linger as an orphan if it crashes."""
    _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


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
        self._eof = asyncio.Event()
        self._exited = asyncio.Event()
        self._kill_task: asyncio.Task[None] | None = None
        self._pidfd: int | None = None
        self._exit_poller: asyncio.Task[None] | None = None
        self.on_exit: Callable[[], None] | None = None
        os.set_blocking(read_fd, False)
        self._loop.add_reader(read_fd, self._on_readable)
        self._watch_exit()

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
        try:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout_at(deadline):
                    await self._exited.wait()
            if self._exited.is_set():
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(POST_EXIT_DRAIN_S):
                        await self._eof.wait()
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
        data = memoryview(text.encode("utf-8"))
        while data and not self.closing:
            try:
                written = os.write(self._fd, data)
            except BlockingIOError:
                await self._writable()
                continue
            except OSError as exc:
                _logger.info("exec_write_failed", pid=self.pid, error=str(exc))
                return
            data = data[written:]

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
                await self._exited.wait()
        self._release()

    async def _signal_and_wait(self, sig: signal.Signals, wait_s: float) -> bool:
        # Checking first keeps a reaped, empty group's id (which the kernel may reuse) from being signalled.
        if not _group_has_live_members(self.pid):
            return True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, sig)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(wait_s):
                # Group membership has no wakeup to wait on, so it is polled.
                while _group_has_live_members(self.pid):  # noqa: ASYNC110
                    await asyncio.sleep(_POLL_S)
                return True
        return False

    def _on_readable(self) -> None:
        try:
            data = os.read(self._fd, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError as exc:
            # A PTY master reports EIO once every slave end is closed: that is its end of file.
            if exc.errno != errno.EIO:
                _logger.warning("exec_read_failed", pid=self.pid, error=str(exc))
            data = b""
        if not data:
            self._deliver(self._decoder.decode(b"", final=True))
            self._loop.remove_reader(self._fd)
            self._eof.set()
            return
        self._deliver(self._decoder.decode(data))

    def _deliver(self, text: str) -> None:
        if not text:
            return
        self._buffer.append(text)
        if self._sink is not None:
            self._sink(text)

    def _watch_exit(self) -> None:
        try:
            self._pidfd = os.pidfd_open(self.pid)
        except (AttributeError, OSError):
            self._exit_poller = self._loop.create_task(self._poll_exit())
            return
        self._loop.add_reader(self._pidfd, self._on_exit_signalled)

    def _on_exit_signalled(self) -> None:
        if self.popen.poll() is None:
            return
        self._drop_pidfd()
        self._exited.set()

    async def _poll_exit(self) -> None:
        # Fallback for kernels without pidfd: nothing else signals a child's exit without a thread.
        while self.popen.poll() is None:  # noqa: ASYNC110
            await asyncio.sleep(_POLL_S)
        self._exited.set()

    async def _writable(self) -> None:
        ready = self._loop.create_future()
        self._loop.add_writer(self._fd, ready.set_result, None)
        try:
            await ready
        finally:
            self._loop.remove_writer(self._fd)

    def _drop_pidfd(self) -> None:
        if self._pidfd is not None:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None

    def _release(self) -> None:
        self._loop.remove_reader(self._fd)
        os.close(self._fd)
        self._drop_pidfd()
        if self._exit_poller is not None:
            self._exit_poller.cancel()
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
    read_fd, child_fd = _open_pty() if tty else os.pipe()
    stdin: int = child_fd if tty else subprocess.DEVNULL
    try:
        popen = subprocess.Popen(
            argv,
            cwd=cwd,
            env=dict(env),
            stdin=stdin,
            stdout=child_fd,
            stderr=child_fd,
            start_new_session=True,
            pass_fds=pass_fds,
            preexec_fn=_prepare_child_pty if tty else _prepare_child,
        )
    except (OSError, ValueError, subprocess.SubprocessError) as exc:  # ValueError: a NUL in argv or env
        os.close(read_fd)
        raise SpawnError(str(exc)) from exc
    finally:
        os.close(child_fd)
    return LiveProcess(popen, read_fd, tty)


def _open_pty() -> tuple[int, int]:
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", _PTY_ROWS, _PTY_COLS, 0, 0))
    return master, slave


def _group_has_live_members(pgid: int) -> bool:
    """Whether any non-zombie process still belongs to process group `pgid` (Linux /proc scan)."""
    if not _group_signalable(pgid):
        return False  # the common case: nothing left, no need to scan every process on the host
    try:
        entries = os.listdir("/proc")
    except OSError:
        return _group_signalable(pgid)
    return any(entry.isdigit() and _stat_is_live_member(entry, pgid) for entry in entries)


def _stat_is_live_member(pid: str, pgid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return False
    # Fields after the command name: state, ppid, pgrp, …
    return len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X")


def _group_signalable(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True
